"""Goose sessions (block/goose): ``goose session export`` JSON and the older per-session JSONL.

Both hold Goose's messages (``{role, created, content[], metadata}``); so does
its ``sessions.db`` (`database`). In a message's content:

* a ``toolRequest`` ``{id, toolCall}`` is a request: ``toolCall.value`` names
  the tool (``<extension>__<tool>``) and its arguments; a ``toolCall`` whose
  status is ``error`` (Goose could not read the model's call) is rejected
  there and then, as the tool ``unknown``;
* a ``toolResponse`` ``{id, toolResult}`` with the same id ends it: an
  ``error`` status failed (a Ctrl-C writes ``Interrupted by the user…``), a
  result marked ``isError`` failed (Goose records no exit code), the message
  Goose writes when the user declined to run it rejected, anything else
  completed.

``actionRequired`` items are the UI's, not calls. Times are whole seconds; an
older session file's first line records no start, and its first message's time
stands for it. Goose records no exit code: a completed call has none.

The conversation around the calls (`talk`): a user message's ``text`` items are a
prompt, an assistant's its words and its ``thinking`` items its reasoning; a message Goose
wrote for the model only (``metadata.userVisible`` false: a compaction's summary) is
neither. Goose names no model in a session, and counts tokens per session, not per
message: the session's ``accumulated_input_tokens`` and ``accumulated_output_tokens``
(else, from a release before them, ``input_tokens`` and ``output_tokens``) are one usage
before its first message, where its description tells them, input and output (Goose
counts no cache apart); a session that records none (a database row whose counts are
empty) says so.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from datetime import datetime
from typing import Any

from .....core.lifecycle.description import About
from ...common.outcomes import completed, epoch_time, failed, rejected
from ...common.pairing import Pairing
from ...common.talk import Talk
from ...common.values import must_be, text_of, utc_time
from ...model import End, Position, Transcript, TranscriptCall
from .signs import FORMAT
from .talk import session_usage, talk_in

UNKNOWN_TOOL = "unknown"
_DECLINED = "The user has declined to run this tool"


def read_export(document: dict[str, Any], name: str) -> Transcript:
    """The calls of an exported session."""
    conversation = document["conversation"]
    path = "$.conversation"
    if isinstance(conversation, dict):  # some releases wrap the list as {messages: [...]}
        conversation, path = conversation.get("messages"), "$.conversation.messages"
    must_be(conversation, list, path, "the conversation")
    session = document.get("id")
    session = session if isinstance(session, str) and session else None
    created = document.get("created_at")
    about = About(
        agent_session_id=session,
        started_at=utc_time(created, "$.created_at") if isinstance(created, str) else None,
        cwd=_text(document.get("working_dir")),
        title=_text(document.get("name")) or _text(document.get("description")),
    )
    messages = [(f"{path}[{index}]", message) for index, message in enumerate(conversation)]
    return read_messages(messages, session or name, about, tokens=(document, "$"))


def read_legacy(records: Iterable[tuple[int, Any]], name: str) -> Transcript:
    """The calls of an older session file: its first line describes it, each next a message.
    Goose names the file after the session's id: the file's own name (the last part of
    ``name``, wherever the file lies) is the session's."""
    rows = iter(records)
    _, header = next(rows)
    messages = ((f"line {line}", message) for line, message in rows)
    own = name.rpartition("/")[2]
    # Only what the first line says (it records no start): a file that grows keeps it.
    about = About(
        agent_session_id=own,
        cwd=_text(header.get("working_dir")),
        title=_text(header.get("description")),
    )
    return read_messages(messages, own, about, tokens=(header, "line 1"))


def read_messages(
    messages: Iterable[tuple[str, Any]],
    name: str,
    about: About,
    *,
    tokens: tuple[Mapping[str, Any], str] | None = None,
) -> Transcript:
    """The calls of a session's messages (each with where it is); ``tokens``: the session's
    description that holds its token counts, and where it is."""
    calls = Pairing()
    talk = Talk()
    if tokens is not None and isinstance(tokens[0], Mapping):
        # Where the file tells it: the description before the messages (an older file's
        # first line), so a file that grows keeps it in its place.
        session_usage(tokens[0], tokens[1], None, (-1,), talk)
    first: datetime | None = None
    for index, (where, message) in enumerate(messages):
        must_be(message, dict, where, "a message")
        at = epoch_time(message.get("created"), f"{where}: created", milliseconds=False)
        first = first or at
        content = message.get("content")
        must_be(content, list, f"{where}: content", "a message's content")
        for number, item in enumerate(content):
            if not isinstance(item, dict):
                continue
            at_item = f"{where}: content[{number}]"
            talk_in(message, item, at, (index, number), talk)
            if item.get("type") == "toolRequest":
                calls.request(_request(item, at, (index, number), at_item))
            elif item.get("type") == "toolResponse":
                call_id = must_be(item.get("id"), str, at_item, "a toolResponse's id")
                known = calls.latest.get(call_id)
                if known is not None and known.tool_name == UNKNOWN_TOOL and known.end:
                    continue  # the answer to a call Goose refused already
                call = calls.ended(call_id, at_item)
                call.end = _end(item.get("toolResult"), at, (index, number), call_id, at_item)
    return Transcript(FORMAT, name, calls.calls(), about=about, first_time=first,
                      talk=tuple(talk.steps))  # fmt: skip


def _request(item: dict[str, Any], at: datetime, position: Position, where: str) -> TranscriptCall:
    call_id = must_be(item.get("id"), str, where, "a toolRequest's id")
    request = must_be(item.get("toolCall"), dict, where, "a toolRequest's toolCall")
    value = request.get("value")
    if request.get("status") == "success" and isinstance(value, dict):
        return TranscriptCall(
            call_id=call_id,
            tool_name=must_be(value.get("name"), str, where, "the tool's name"),
            arguments=must_be(value.get("arguments") or {}, dict, where, "the arguments"),
            requested_at=at,
            position=position,
            where=where,
        )
    reason = str(request.get("error") or "Goose could not read the call")
    call = TranscriptCall(
        call_id=call_id,
        tool_name=UNKNOWN_TOOL,
        arguments={},
        requested_at=at,
        position=position,
        where=where,
    )
    call.end = rejected(at, position, reason, {"id": call_id})
    return call


def _end(result: Any, at: datetime, position: Position, call_id: str, where: str) -> End:
    result = must_be(result, dict, where, "a toolResponse's toolResult")
    metadata = {"id": call_id}
    if result.get("status") != "success":
        return failed(at, position, str(result.get("error") or "error"), metadata)
    value = result.get("value")
    content = value.get("content") if isinstance(value, dict) else value
    output = text_of(content)
    text = output if isinstance(output, str) else ""
    if isinstance(value, dict) and value.get("isError") is True:
        return failed(at, position, text or "the tool reported an error", metadata)
    if text.startswith(_DECLINED):
        return rejected(at, position, text, metadata)
    return completed(at, position, output, metadata)


def _text(value: object) -> str | None:
    return value if isinstance(value, str) and value else None
