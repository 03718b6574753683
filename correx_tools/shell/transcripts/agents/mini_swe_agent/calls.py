"""mini-swe-agent trajectories (``<instance>.traj.json``, ``trajectory_format``
``mini-swe-agent-1``): one JSON object, the run's ``messages`` and its ``info``. The format
of SWE-bench's bash-only leaderboard, 500 trajectories a run.

mini-swe-agent has one tool, a shell: each assistant message holds exactly one
````` ```bash ````` block, the command it runs (a message with none, or with more than one,
runs nothing: the harness answers with a format error, which is no call's result). The
next user message is the command's result: ``<returncode>N</returncode>`` then its output
in ``<output>`` (or, for a long one, a ``<warning>`` and its head and tail), read as a
completed ``bash`` call with that exit code; a command that timed out (``The last
command … timed out``) failed, in the harness's words. The last message after the
command that submits (``echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT``) is the
submission itself, that call's output. The calls have no ids of their own: call ``n`` is
``step-n``. *Decision*: a trajectory records when each model response was made
(``created``), never when a command ended, so its steps are given no times (a call's
duration would be made up); the first response's time is when the session started.

Beside the calls (`talk`): the first user message is the task; each assistant message's
text, its model (``extra.response.model``), reasoning and tokens (``usage``:
``prompt_tokens`` hold the ``cached_tokens``, read as cache read). The run's ``info`` is
its outcome (`Outcome`): ``exit_status``, the ``submission`` patch, ``model_stats``'
``instance_cost`` and ``api_calls``, and the ``instance_id`` as its task; the working
directory its environment ran in (``info.config.environment.cwd``) is the session's.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .....core.lifecycle.description import About
from .....core.lifecycle.outcome import Outcome, with_patch
from ...common.outcomes import completed, failed, first_line
from ...common.values import must_be
from ...model import Transcript, TranscriptCall, step_time
from .signs import FORMAT
from .talk import response_time, talk_in

TOOL = "bash"
"""The name its one tool's calls are recorded under."""
_FENCE = "```bash"
_TIMED_OUT = "The last command"


def read(document: Any, name: str) -> Transcript:
    """The calls, conversation and outcome of a mini-swe-agent trajectory."""
    messages = must_be(document["messages"], list, "$.messages", "messages")
    calls: list[TranscriptCall] = []
    open_call: TranscriptCall | None = None
    for index, message in enumerate(messages):
        where = f"$.messages[{index}]"
        must_be(message, dict, where, "a message")
        role, content = message.get("role"), message.get("content")
        text = content if isinstance(content, str) else ""
        if role == "assistant":
            command = one_command(text)
            if command is None:
                continue  # no command, or several: the harness refuses it, nothing runs
            call = TranscriptCall(
                call_id=f"step-{len(calls) + 1}",
                tool_name=TOOL,
                arguments={"command": command},
                requested_at=step_time(index),
                position=(index, 0),
                where=where,
                recorded=False,
            )
            calls.append(call)
            open_call = call
        elif role == "user" and open_call is not None:
            open_call.end = _ended(open_call.requested_at, index, text)
            open_call = None
    return Transcript(
        FORMAT, name, tuple(calls), about=_about(document), outcome=_outcome(document),
        talk=tuple(talk_in(messages).steps),
    )  # fmt: skip


def one_command(text: str) -> str | None:
    """The command of an assistant message: its one ```bash block (``None`` when it has
    none or more than one). Read by ``find``, no regex: the model wrote it."""
    start = text.find(_FENCE)
    if start < 0 or text.find(_FENCE, start + len(_FENCE)) >= 0:
        return None
    body = start + len(_FENCE)
    newline = text.find("\n", body)
    if newline < 0 or text[body:newline].strip():
        return None
    end = text.find("\n```", newline)
    if end < 0:
        return None
    return text[newline + 1 : end]


def _ended(at: datetime, index: int, text: str) -> Any:
    """The end a user message gives the command before it."""
    metadata = {"step": str(index)}
    if text.startswith("<returncode>"):
        code_text, _, rest = text[len("<returncode>") :].partition("</returncode>")
        code = int(code_text) if code_text.strip().lstrip("-").isdigit() else None
        return completed(at, (index, 0), _output(rest), metadata, code, recorded=False)
    if text.startswith(_TIMED_OUT):
        return failed(at, (index, 0), first_line(text), metadata, recorded=False)
    return completed(at, (index, 0), text, metadata, recorded=False)  # the submission


def _output(rest: str) -> str:
    """A result's output: inside ``<output>``, else all of it (a long one's warning, head
    and tail)."""
    body = rest.strip("\n")
    if body.startswith("<output>") and body.endswith("</output>"):
        return body[len("<output>") : -len("</output>")].strip("\n")
    return body


def _about(document: dict[str, Any]) -> About:
    config = _mapping(_mapping(document.get("info")).get("config"))
    cwd = _mapping(config.get("environment")).get("cwd")
    messages = document["messages"]
    began = next((found for m in messages if isinstance(m, dict) and m.get("role") == "assistant"
                  and (found := response_time(m)) is not None), None)  # fmt: skip
    return About(cwd=cwd if isinstance(cwd, str) and cwd else None, started_at=began)


def _outcome(document: dict[str, Any]) -> Outcome:
    info = _mapping(document.get("info"))
    stats = _mapping(info.get("model_stats"))
    cost, calls = stats.get("instance_cost"), stats.get("api_calls")
    task, status = document.get("instance_id"), info.get("exit_status")
    patch = info.get("submission")
    found = Outcome(
        task=task if isinstance(task, str) and task else None,
        exit_status=status if isinstance(status, str) and status else None,
        cost=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
        model_calls=calls if type(calls) is int and calls >= 0 else None,
    )
    return with_patch(found, patch if isinstance(patch, str) else None)


def _mapping(value: object) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}
