"""Cline and Roo Code tasks: ``tasks/<task id>/api_conversation_history.json``.

An Anthropic-style message list that Cline keeps for the model, in either of
two encodings, one message at a time:

* **native**: an assistant ``tool_use`` block is a request; the user
  ``tool_result`` with its id ends it;
* **XML in text**: an assistant text holding one ``<tool_name>…</tool_name>``
  element (its children are the arguments) is a request; the next user
  message, when it begins ``[tool_name …] Result:``, ends it (pairing by
  position). A call followed by anything else — ``[Response interrupted …]``,
  ``[TASK RESUMPTION]`` — stays in flight.

The text after ``Result:`` says how the call ended: ``The user denied this
operation.`` rejected; ``The tool execution failed with the following error``
failed, but rejected for a missing required parameter; ``Command failed with
exit code N.`` completed with N (``Command executed successfully (exit code 0).``
with 0; a command's result that begins otherwise, ``Command executed.`` or
``Command terminated by signal …``, states none, and so has none: Cline's
``CommandOrchestrator``); anything else completed, with no exit code. Messages
carry ``ts`` (milliseconds) in newer files; older ones have no times (derived,
keeping the order: the session's description says no time is recorded).

The conversation around the calls (`talk`): a user text is a prompt (the task, the
words inside Cline's ``<task>``, ``<feedback>``, ``<answer>`` or ``<user_message>``), but
for a tool's result and what Cline writes itself (``<environment_details>``,
``[TASK RESUMPTION]``, ``[Response interrupted …]``); an assistant's text is its words
(less its tool element, when it is an XML call) with the model of its ``modelInfo``, its
``<thinking>`` elements and ``thinking`` blocks its reasoning. This file records no
tokens: Cline keeps them in the task's ``ui_messages.json`` (``api_req_started``), read
with the history by `usage`.
"""

from __future__ import annotations

import dataclasses
from datetime import datetime
from pathlib import Path
from typing import Any

import re2

from .....core.lifecycle.description import About
from ...common.long_text import head_match, joined
from ...common.outcomes import completed, epoch_time, failed, rejected
from ...common.pairing import Pairing
from ...common.talk import Talk
from ...common.values import must_be
from ...errors import Unreadable
from ...model import End, Position, Transcript, TranscriptCall, step_time
from .signs import FORMAT, HISTORY, RESULT, message_texts
from .talk import talk_in

_EXIT_CODE = re2.compile(
    r"\ACommand (?:failed with exit code (-?[0-9]{1,9})\."
    r"|executed successfully \(exit code (0)\)\.)"
)
_CWD = re2.compile(r"# Current Working Directory \(([^\n]+?)\) Files")
_TAG = re2.compile(r"<([a-z_]+)>")
_THINKING = re2.compile(r"(?s)<thinking>.*?</thinking>")
_DENIED = "The user denied this operation."
_TOOL_ERROR = "The tool execution failed with the following error:"
_MISSING = "Missing value for required parameter"
# Tools whose element may open a message with no result after it (the others are known
# by the result that names them). Cline's and Roo Code's own.
_TOOLS = frozenset(
    [
        "execute_command",
        "read_file",
        "write_to_file",
        "replace_in_file",
        "search_files",
        "list_files",
        "list_code_definition_names",
        "browser_action",
        "use_mcp_tool",
        "access_mcp_resource",
        "ask_followup_question",
        "plan_mode_respond",
        "attempt_completion",
        "new_task",
        "web_fetch",
        "load_mcp_documentation",
        "condense",
        "summarize_task",
        "report_bug",
        "new_rule",
        "apply_diff",
        "insert_content",
        "search_and_replace",
        "switch_mode",
        "codebase_search",
        "fetch_instructions",
        "update_todo_list",
        "run_slash_command",
        "generate_image",
        "apply_patch",
    ]
)
_LONG_TEXT = frozenset({"content", "diff"})
"""Parameters whose text may hold anything, markup included: they end at their last
closing tag, and keep their inner lines (one newline each side is the element's own)."""


@dataclasses.dataclass(frozen=True, slots=True)
class _Entry:
    """One message of the history: its record, where it stands (its index and its JSON path)
    and when it was written (``recorded``: whether the file says when)."""

    record: dict[str, Any]
    index: int
    where: str
    at: datetime
    recorded: bool


def placed(transcript: Transcript, path: Path) -> Transcript:
    """A task's history with its id, which names the session: the folder it is kept in is
    named by the task's id."""
    if path.name != HISTORY:
        return transcript
    task = path.resolve().parent.name or transcript.session
    about = dataclasses.replace(transcript.about, agent_session_id=task)
    return dataclasses.replace(transcript, session=task, about=about)


def read(document: list[Any], name: str) -> Transcript:
    """The calls of a conversation history."""
    calls = Pairing()
    talk = Talk()
    waiting: TranscriptCall | None = (
        None  # an XML call, until the next user message says how it went
    )
    for index, message in enumerate(document):
        where = f"$[{index}]"
        must_be(message, dict, where, "a message")
        at, recorded = _time(message, index, where)
        entry = _Entry(message, index, where, at, recorded)
        tool = None
        if message.get("role") == "assistant":
            waiting = None
            native = _native_requests(entry)
            for call in native:
                call.recorded = recorded
                calls.request(call)
            if not native:
                answer = document[index + 1] if index + 1 < len(document) else None
                waiting = _xml_request(entry, _result_of(answer))
                if waiting is not None:
                    waiting.recorded = recorded
                    calls.request(waiting)
                    tool = waiting.tool_name
        elif message.get("role") == "user":
            _native_results(entry, calls)
            if waiting is not None:
                waiting.end = _xml_result(entry, waiting)
                waiting = None
        talk_in(message, index, at if recorded else None, tool, talk)
    return Transcript(FORMAT, name, calls.calls(), about=_about(document), talk=tuple(talk.steps))


def _time(message: dict[str, Any], index: int, where: str) -> tuple[datetime, bool]:
    """When the message was written, and whether it records that (older files do not)."""
    stamp = message.get("ts")
    if stamp is None:
        return step_time(index), False
    return epoch_time(stamp, f"{where}.ts", milliseconds=True), True


def _native_requests(entry: _Entry) -> list[TranscriptCall]:
    content = entry.record.get("content")
    found = []
    for number, block in enumerate(content if isinstance(content, list) else []):
        if isinstance(block, dict) and block.get("type") == "tool_use":
            at_block = f"{entry.where}.content[{number}]"
            found.append(
                TranscriptCall(
                    call_id=must_be(block.get("id"), str, f"{at_block}.id", "a tool_use id"),
                    tool_name=must_be(block.get("name"), str, f"{at_block}.name", "a name"),
                    arguments=must_be(block.get("input", {}), dict, f"{at_block}.input", "input"),
                    requested_at=entry.at,
                    position=(entry.index, number),
                    where=at_block,
                )
            )
    return found


def _native_results(entry: _Entry, calls: Pairing) -> None:
    content = entry.record.get("content")
    for number, block in enumerate(content if isinstance(content, list) else []):
        if isinstance(block, dict) and block.get("type") == "tool_result":
            at_block = f"{entry.where}.content[{number}]"
            call_id = must_be(block.get("tool_use_id"), str, at_block, "tool_use_id")
            call = calls.ended(call_id, at_block)
            text = joined("\n", message_texts(block))
            metadata = {"tool_use_id": call_id}
            call.end = _outcome(text, entry, (entry.index, number), metadata)


def _result_of(message: Any) -> str | None:
    """The tool a user message gives the result of (``[tool for 'x'] Result:``), if any."""
    texts = (
        message_texts(message)
        if isinstance(message, dict) and message.get("role") == "user"
        else []
    )
    head = head_match(RESULT, texts[0]) if texts else None
    return None if head is None else head[1]


def _xml_request(entry: _Entry, answered: str | None) -> TranscriptCall | None:
    """The one tool element of an assistant's text, if it holds one (``answered`` names the
    tool the next message gives the result of)."""
    for text in message_texts(entry.record):
        found = _element(text, answered)
        if found is not None:
            tool, arguments = found
            return TranscriptCall(
                call_id=f"message-{entry.index}",
                tool_name=tool,
                arguments=arguments,
                requested_at=entry.at,
                position=(entry.index, 0),  # after the words of its message, at (index, -1, n)
                where=entry.where,
            )
    return None


def _element(text: str, answered: str | None) -> tuple[str, dict[str, str]] | None:
    """The first complete tool element outside ``<thinking>``, and its parameters: the
    earliest ``<tool>`` that its tool's last ``</tool>`` follows.

    Only a tool's first opening can be the earliest complete one, so each tool is looked up
    with two string searches: a model's text may open a tool a hundred thousand times.
    """
    text = _THINKING.sub("", text)
    found: tuple[int, str, int] | None = None
    named = {answered} if answered and _TAG.fullmatch(f"<{answered}>") else set()
    for tool in _TOOLS | named:
        opening = text.find(f"<{tool}>")
        if opening < 0 or (found is not None and opening > found[0]):
            continue
        body = opening + len(tool) + 2
        close = text.rfind(f"</{tool}>")
        if close > body:
            found = (opening, tool, close)
    if found is None:
        return None
    opening, tool, close = found
    return tool, _parameters(text[opening + len(tool) + 2 : close])


def _parameters(body: str) -> dict[str, str]:
    parameters: dict[str, str] = {}
    at = 0
    while (opening := _TAG.search(body, at)) is not None:
        name = opening.group(1)
        closing = f"</{name}>"
        end = body.rfind(closing) if name in _LONG_TEXT else body.find(closing, opening.end())
        if end < 0:
            break
        value = body[opening.end() : end]
        long_text = name in _LONG_TEXT
        parameters[name] = (
            value.removeprefix("\n").removesuffix("\n") if long_text else value.strip()
        )
        at = end + len(closing)
    return parameters


def _xml_result(entry: _Entry, call: TranscriptCall) -> End | None:
    texts = message_texts(entry.record)
    tool = _result_of(entry.record)
    if tool is None:
        return None  # interrupted, resumed: no result for the call
    if tool != call.tool_name:
        raise Unreadable(entry.where, f"a result of {tool} after a call of {call.tool_name}")
    answer = joined("\n", (text for text in texts if "<environment_details>" not in text))
    return _outcome(answer, entry, (entry.index,), {"message": str(entry.index)})


def _outcome(text: str, entry: _Entry, position: Position, metadata: dict[str, str]) -> End:
    """How a result's text in ``entry`` says its call ended (see the module docstring)."""
    at, recorded = entry.at, entry.recorded
    head = RESULT.match(text)
    body = text[head.end() :].lstrip("\n") if head else text
    if body.startswith(_DENIED):
        return rejected(at, position, body, metadata, recorded=recorded)
    if _TOOL_ERROR in body:
        error = body.split(_TOOL_ERROR, 1)[1].strip()
        error = error.removeprefix("<error>").split("</error>")[0].strip()
        if error.startswith(_MISSING):
            return rejected(at, position, error, metadata, recorded=recorded)
        return failed(at, position, error, metadata, recorded=recorded)
    stated = _EXIT_CODE.match(body)
    code = None if stated is None else int(stated.group(1) or stated.group(2))
    return completed(at, position, body, metadata, code, recorded=recorded)


def _about(document: list[Any]) -> About:
    first = document[0] if document and isinstance(document[0], dict) else {}
    stamp = first.get("ts")
    cwd = next((m[1] for text in message_texts(first) if (m := _CWD.search(text))), None)
    return About(
        started_at=None if stamp is None else epoch_time(stamp, "$[0].ts", milliseconds=True),
        cwd=cwd,
    )
