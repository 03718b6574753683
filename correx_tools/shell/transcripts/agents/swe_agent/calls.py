"""SWE-agent trajectories (``*.traj``): one JSON object, its steps in ``trajectory``.

Each step with an action is one call, completed by the step's observation
(SWE-agent records no exit code: the receipt's is 0, and its metadata says the
code is unknown). An edit the tool answered it did not make — SWE-agent's
``Your edit was not applied (file not modified)``, ``No changes were made``, an
edit reverted for the syntax errors it brought (``Your proposed edit has
introduced new syntax error(s)``), ``No replacement was performed`` — stays
completed (SWE-agent records no failure) and is marked as not applied, in the
tool's words. Runs that call functions keep OpenAI-style ``tool_calls`` in
``history``: those give the calls' ids, names and arguments, in step order.
Older runs have none: the id is derived from the step number, the tool name is
the command's first word and the arguments are ``{"command": <the whole action>}``.

The run's repository is its first step's ``state.working_dir``: the session's working
directory. Its ``info`` is its outcome (`Outcome`): ``exit_status``, the ``submission``
patch, ``model_stats``' ``instance_cost`` and ``api_calls`` (its task is the file's name,
``<instance>.traj``: `common.evaluations`).

Trajectories record no times. They are derived, the same on every import: the
first step starts at a fixed origin, and each step lasts its ``execution_time``
where the run recorded one, else one second. They only keep the order: the
session's description says no time is recorded. A step's ``execution_time`` is a
duration the run did record: its receipt keeps it (seconds, as written).

The conversation around the calls (`talk`): the first user message of
``history`` is the prompt (the task as the run's template put it; a demonstration's
messages, ``is_demo``, are not this run's, and the later user messages are the
environment's observations); each step's ``thought`` is the assistant's words before its
action. *Decision*: a thought is text, not reasoning: it is what the model wrote
in its answer, beside the action (SWE-agent's ``DISCUSSION``, or the message's content
in runs that call functions), not a reasoning channel kept apart. A trajectory names no
model (its config does, which is not what ran). Its tokens are the run's:
``info.model_stats`` ``tokens_sent`` (input, cached tokens among them: SWE-agent counts
no cache apart) and ``tokens_received`` (output), one usage after the last step; a run
whose counts are both 0 (a replayed demonstration: its replay "model" counts nothing,
though it answered ``api_calls`` times) records none, and says so.
"""

from __future__ import annotations

from datetime import timedelta
from typing import Any

from .....core.lifecycle.description import About
from .....core.lifecycle.outcome import Outcome, with_patch
from ....stores.codec.strict_json import EnvelopeError, loads_strict
from ...common.lines import loads_shallow
from ...common.outcomes import completed, first_line, not_applied
from ...common.pairing import unique_id
from ...common.values import must_be, text_of
from ...errors import Unreadable
from ...model import ORIGIN, Transcript, TranscriptCall
from .signs import FORMAT
from .talk import talk_in

EDIT_TOOLS = frozenset({"edit", "insert", "str_replace_editor"})
"""SWE-agent's file-editing tools (windowed_edit_*, edit_anthropic)."""
_NOT_APPLIED = (
    "Your edit was not applied",
    "Your search and replace strings are the same. No changes were made",
    "Your proposed edit has introduced new syntax error(s)",
    "No replacement was performed",
    "ERROR: No replacement was performed",
)


def read(document: Any, name: str) -> Transcript:
    """The calls of a trajectory."""
    steps = [
        (number, step)
        for number, step in enumerate(document["trajectory"])
        if isinstance(step, dict) and isinstance(step.get("action"), str) and step["action"].strip()
    ]
    declared = _function_calls(document.get("history"))
    paired = len(declared) == len(steps)
    calls = []
    taken: dict[str, int] = {}
    now = ORIGIN
    for order, (number, step) in enumerate(steps):
        where = f"$.trajectory[{number}]"
        recorded = step.get("execution_time")
        if isinstance(recorded, bool) or not isinstance(recorded, (int, float)) or recorded < 0:
            recorded = None
        seconds = 1.0 if recorded is None else float(recorded)
        ended = now + timedelta(seconds=seconds)
        action = step["action"]
        if paired:
            call_id, tool, arguments = declared[order]
        else:
            call_id, tool, arguments = f"step-{number + 1}", action.split()[0], {"command": action}
        output = text_of(step.get("observation"))
        metadata = {"step": str(number + 1)}
        if recorded is not None:  # a duration the run recorded (its steps' times are not)
            metadata["execution_time"] = repr(recorded)
        if tool in EDIT_TOOLS and isinstance(output, str):
            note = first_line(output)
            if note.startswith(_NOT_APPLIED):
                metadata = not_applied(metadata, output)
        calls.append(
            TranscriptCall(
                call_id=unique_id(call_id, taken),
                tool_name=tool,
                arguments=arguments,
                requested_at=now,
                position=(number, 0),  # after the step's thought, at (number, -1, n)
                where=where,
                end=completed(ended, (number, 1), output, metadata, recorded=False),
                recorded=False,
            )
        )
        now = ended
    return Transcript(
        FORMAT, name, tuple(calls), about=About(cwd=_working_dir(document)),
        talk=tuple(talk_in(document).steps), outcome=_outcome(document),
    )  # fmt: skip


def _working_dir(document: dict[str, Any]) -> str | None:
    """The repository the run worked in: its first step's ``state.working_dir`` (a JSON
    object, or its text in older runs)."""
    for step in document["trajectory"][:1]:
        state = step.get("state") if isinstance(step, dict) else None
        if isinstance(state, str) and state.lstrip().startswith("{"):
            try:
                state = loads_strict(state)
            except EnvelopeError:
                return None
        found = state.get("working_dir") if isinstance(state, dict) else None
        if isinstance(found, str) and found.startswith("/"):
            return found
    return None


def _outcome(document: dict[str, Any]) -> Outcome | None:
    """How the run ended: its ``info``'s ``exit_status``, ``submission`` and
    ``model_stats`` (``instance_cost``, ``api_calls``); ``None`` for a file without one."""
    info = document.get("info")
    if not isinstance(info, dict):
        return None
    status, patch = info.get("exit_status"), info.get("submission")
    stats = info.get("model_stats")
    stats = stats if isinstance(stats, dict) else {}
    cost, calls = stats.get("instance_cost"), stats.get("api_calls")
    found = Outcome(
        exit_status=status if isinstance(status, str) and status else None,
        cost=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
        model_calls=calls if type(calls) is int and calls >= 0 else None,
    )
    return with_patch(found, patch if isinstance(patch, str) else None)


def _function_calls(history: Any) -> list[tuple[str, str, dict[str, Any]]]:
    """The ``(id, name, arguments)`` of every tool call the run's history declares."""
    found: list[tuple[str, str, dict[str, Any]]] = []
    for index, message in enumerate(history if isinstance(history, list) else []):
        tool_calls = message.get("tool_calls") if isinstance(message, dict) else None
        for number, tool_call in enumerate(tool_calls if isinstance(tool_calls, list) else []):
            where = f"$.history[{index}].tool_calls[{number}]"
            must_be(tool_call, dict, where, "a tool call")
            function = must_be(tool_call.get("function"), dict, f"{where}.function", "function")
            text = must_be(
                function.get("arguments", "{}"), str, f"{where}.function.arguments", "the arguments"
            )
            try:
                arguments = loads_shallow(text) if text.strip() else {}
            except EnvelopeError as error:
                raise Unreadable(f"{where}.function.arguments", str(error)) from None
            found.append(
                (
                    must_be(tool_call.get("id"), str, f"{where}.id", "a tool call's id"),
                    must_be(function.get("name"), str, f"{where}.function.name", "the name"),
                    must_be(arguments, dict, f"{where}.function.arguments", "the arguments"),
                )
            )
    return found
