"""OpenHands' completion logs (``llm_completions/<task>/*.json``), recorded as
``openhands-completion``: the log LiteLLM writes of one model call, ``{messages, response,
args, kwargs, timestamp, cost}``.

Each log holds the conversation up to its model call (``messages``, an OpenAI chat list
whose contents are lists of text parts) and the call's answer (``response``): the last
log of a run holds the whole run. The messages are read as an OpenAI chat list is
(`openai_chat`), and then the answer, as one more assistant message: its words, its
model, its tokens (``response.usage``, the tokens of that one call: the log records no
other's) and its calls. A ``finish`` call among them ends the run: it is completed where
it is asked for (OpenHands gives it no result to wait for); any other call of the answer
is in flight (the log was written before it ran). An editor's answer that begins
``ERROR:`` (``No replacement was performed``, a file that exists already) changed
nothing: the call is completed and marked so, as in OpenHands' histories. The log's
``cost`` is that one call's cost, kept as the run's outcome's (`Outcome`), with its task
(the folder it is in, or the OpenHands evaluation log beside it: `common.evaluations`)
and ``exit_status`` ``finished`` when the answer finishes. The repository in the task's
``<uploaded_files>`` is the session's working directory.

*Decision*: a folder holds one log per model call, each a session of the run so far; the
last one (by name: its time) is the whole run, and the one to compare.
"""

from __future__ import annotations

import dataclasses
from typing import Any

from .....core.lifecycle.description import About
from .....core.lifecycle.outcome import Outcome
from ...common.outcomes import completed, not_applied
from ...common.talk import texts
from ...model import Transcript, step_time
from ..openai_chat.calls import read as read_chat
from .calls import uploaded
from .signs import COMPLETION_FORMAT as FORMAT

FINISH = "finish"
"""The call that ends an OpenHands run."""
EDITORS = frozenset({"str_replace_editor", "edit_file"})
"""OpenHands' file editors: an answer that begins ``ERROR:`` changed nothing."""


def read(document: Any, name: str) -> Transcript:
    """The calls, conversation and outcome of a completion log."""
    messages: list[Any] = list(document["messages"])
    response = document["response"]
    answer = _answer(response)
    if answer is not None:
        messages.append(answer)
    found = read_chat({"messages": messages}, name)
    calls = list(found.calls)
    for call in calls:  # an editor's ERROR: changed nothing, as in OpenHands' own histories
        end = call.end
        if call.tool_name in EDITORS and end is not None and _refused_edit(end.output):
            call.end = dataclasses.replace(end, metadata=not_applied(end.metadata, end.output))
    finished = False
    if answer is not None:
        last = len(messages) - 1
        for call in calls:
            if call.position[0] == last and call.end is None and call.tool_name == FINISH:
                ends = {"ends_run": "true"}
                call.end = completed(step_time(last), (last, 1), None, ends, recorded=False)
                finished = True
    prompt = next(
        ("\n".join(texts(m.get("content"))) for m in messages
         if isinstance(m, dict) and m.get("role") == "user"), ""
    )  # fmt: skip
    cost = document.get("cost")
    outcome = Outcome(
        exit_status="finished" if finished else None,
        cost=float(cost) if isinstance(cost, int | float) and not isinstance(cost, bool) else None,
    )
    return dataclasses.replace(
        found, format=FORMAT, calls=tuple(calls), about=About(cwd=uploaded(prompt)),
        outcome=outcome,
    )  # fmt: skip


def _refused_edit(output: object) -> bool:
    """Whether an editor's answer says it changed nothing (OpenHands' ``ERROR:``)."""
    return isinstance(output, str) and output.startswith("ERROR:")


def _answer(response: dict[str, Any]) -> dict[str, Any] | None:
    """The response's message, as one more assistant message with the response's model and
    usage (read by the chat reader as a message stored whole)."""
    choices = response.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = choice.get("message") if isinstance(choice, dict) else None
    if not isinstance(message, dict):
        return None
    answer = {key: value for key, value in message.items() if value is not None}
    answer["role"] = "assistant"
    for key in ("model", "usage"):
        if response.get(key) is not None:
            answer[key] = response[key]
    return answer
