"""Gemini CLI chats (``~/.gemini/tmp/<project>/chats/session-*.jsonl``, or the older ``.json``).

A subagent's chat (``kind: "subagent"``) is kept in a folder named by the
session that started it, ``chats/<parent session>/<its id>.jsonl``; its
description names that session.

The ``.jsonl`` form: the first line is the session (``sessionId``,
``projectHash``, ``startTime``), each later line a message record, a
``{"$rewindTo": id}`` (that message and every one after it are dropped: their
calls never count) or a ``{"$set": {…}}`` (``messages`` there replaces the
list). The writer appends a message again on every update: the last copy wins
and the first position is kept. The ``.json`` form is one object with the same
keys and the ``messages`` list.

Each ``toolCalls`` entry of a ``gemini`` message is one call, its request and
result in one record: ``success`` completed (a shell's ``Exit Code: N``, the last
such line, after the command's own output, is its exit code; an output that
states none has none); ``error`` failed, but rejected for a tool not in the
registry or parameters that did not validate; ``cancelled`` rejected when the
user denied it, failed when a running call was cancelled; any other status in
flight. An outcome without its own ``timestamp``
has no recorded time (the request's keeps its place).

The conversation around the calls (`talk`), read from each message's last copy
like its calls: a ``user`` message's text parts are a prompt; a ``gemini`` message's
``thoughts`` (each its ``subject`` and ``description``) are its reasoning and its
``content`` its words, with its ``model``; its ``tokens`` are its usage, once per
message id: ``input`` holds the ``cached`` tokens (cache read, the rest input), the
``tool`` prompt tokens are input too, ``thoughts`` are output; Gemini records no
tokens written to a cache. ``info``, ``error`` and ``warning`` messages are the CLI's own.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from pathlib import Path
from typing import Any

import re2

from .....core.lifecycle.description import About
from ...common.outcomes import completed, failed, rejected
from ...common.values import must_be, utc_time
from ...model import End, Position, TalkStep, Transcript, TranscriptCall
from .signs import FORMAT
from .talk import talk_in

_EXIT_CODE = re2.compile(r"(?:\A|\n)Exit Code: (-?[0-9]{1,9})\b")
_REJECTED_ERRORS = (
    "not found in registry",
    "params must ",
    "Invalid parameters",
    "denied by policy",
)
_DENIED = "User denied execution"
SUBAGENT = ""
"""A chat's parent session while only its folder knows it (``chats/<parent>/<id>.jsonl``)."""


def placed(transcript: Transcript, path: Path) -> Transcript:
    """A subagent's chat with its parent: the folder it is kept in is named by the session
    that started it."""
    if transcript.about.parent_session != SUBAGENT:
        return transcript
    about = replace(transcript.about, parent_session=path.parent.name or None)
    return replace(transcript, about=about)


@dataclass(slots=True)
class _Message:
    """A message as its latest copy has it: its calls, each placed where it first appeared,
    its outcome where that outcome first appeared (the raw copies are let go: a chat's
    every message is held to its end, for a rewind may yet drop it)."""

    first: int
    """The index of the record where the message first appeared: its place."""
    calls: list[TranscriptCall] = field(default_factory=list)
    talk: list[TalkStep] = field(default_factory=list)

    def update(self, record: dict[str, Any], index: int, where: str) -> None:
        """Take this copy of the message (record ``index``)."""
        earlier = {call.call_id: call for call in self.calls}
        self.calls = _calls(record, where, index, earlier)
        self.talk = talk_in(record, self.first, where)


def read_lines(records: Iterable[tuple[int, Any]], name: str) -> Transcript:
    """The calls of a ``.jsonl`` chat: its records replayed, rewinds and all."""
    rows = iter(records)
    _, header = next(rows)
    messages: dict[str, _Message] = {}
    for index, (line, record) in enumerate(rows, start=1):
        where = f"line {line}"
        must_be(record, dict, where, "a record")
        if "$rewindTo" in record:
            target = must_be(record["$rewindTo"], str, f"{where}: $rewindTo", "$rewindTo")
            if target in messages:
                ids = list(messages)
                for dropped in ids[ids.index(target) :]:
                    del messages[dropped]
        elif "$set" in record:
            changes = must_be(record["$set"], dict, where, "$set")
            if "messages" in changes:
                listed = must_be(changes["messages"], list, f"{where}: $set.messages", "messages")
                kept = {key: messages[key] for key in _ids(listed, where) if key in messages}
                messages.clear()
                _add_all(messages, kept, listed, index, where)
        else:
            _add(messages, record, index, where)
    calls = [call for message in messages.values() for call in message.calls]
    talk = tuple(step for message in messages.values() for step in message.talk)
    return Transcript(FORMAT, _session(header, name), tuple(calls), about=_about(header, "line 1"),
                      talk=talk)  # fmt: skip


def read_document(document: dict[str, Any], name: str) -> Transcript:
    """The calls of a chat in the older ``.json`` form."""
    calls = []
    talk: list[TalkStep] = []
    for index, message in enumerate(document["messages"]):
        where = f"$.messages[{index}]"
        must_be(message, dict, where, "a message")
        calls.extend(_calls(message, where, index, {}))
        talk.extend(talk_in(message, index, where))
    return Transcript(FORMAT, _session(document, name), tuple(calls), about=_about(document, "$"),
                      talk=tuple(talk))  # fmt: skip


def _add(messages: dict[str, _Message], record: dict[str, Any], index: int, where: str) -> None:
    key = must_be(record.get("id"), str, where, "a message's id")
    known = messages.get(key)
    if known is None:
        messages[key] = known = _Message(index)
    known.update(record, index, where)


def _add_all(
    messages: dict[str, _Message],
    kept: dict[str, _Message],
    listed: list[Any],
    index: int,
    where: str,
) -> None:
    for number, record in enumerate(listed):
        at = f"{where}: $set.messages[{number}]"
        must_be(record, dict, at, "a message")
        key = must_be(record.get("id"), str, at, "a message's id")
        messages[key] = kept.get(key) or _Message(index)
        messages[key].update(record, index, at)


def _ids(listed: list[Any], where: str) -> list[str]:
    return [
        must_be(m.get("id") if isinstance(m, dict) else None, str, where, "a message's id")
        for m in listed
    ]


def _tool_calls(message: dict[str, Any], where: str) -> list[dict[str, Any]]:
    entries = message.get("toolCalls") if message.get("type") == "gemini" else None
    if entries is None:
        return []
    must_be(entries, list, f"{where}: toolCalls", "toolCalls")
    for number, entry in enumerate(entries):
        must_be(entry, dict, f"{where}: toolCalls[{number}]", "a tool call")
    return entries  # type: ignore[no-any-return]


def _calls(
    message: dict[str, Any], where: str, index: int, earlier: dict[str, TranscriptCall]
) -> list[TranscriptCall]:
    """The calls of one copy of a message (record ``index``), ``earlier`` those of the copy
    before it: a call keeps its first place, and an outcome that did not change its own."""
    calls = []
    requested_at = utc_time(message.get("timestamp"), f"{where}: timestamp")
    for number, entry in enumerate(_tool_calls(message, where)):
        at_call = f"{where}: toolCalls[{number}]"
        call_id = must_be(entry.get("id"), str, at_call, "a tool call's id")
        before = earlier.get(call_id)
        call = TranscriptCall(
            call_id=call_id,
            tool_name=must_be(entry.get("name"), str, at_call, "a tool call's name"),
            arguments=must_be(entry.get("args", {}), dict, at_call, "a tool call's args"),
            requested_at=requested_at,
            position=(index, number) if before is None else before.position,
            where=at_call,
        )
        done = entry.get("timestamp")
        at = utc_time(done, f"{at_call}.timestamp") if done else requested_at
        end = _end(entry, at, (index, number), {"call_id": call_id}, recorded=bool(done))
        previous = None if before is None else before.end
        if previous and end and replace(end, position=previous.position) == previous:
            end = previous  # the same outcome again: it keeps the place it first had
        call.end = end
        calls.append(call)
    return calls


def _end(
    entry: dict[str, Any],
    at: datetime,
    position: Position,
    metadata: dict[str, str],
    *,
    recorded: bool = True,
) -> End | None:
    """How a call ended (``recorded``: whether the entry records when)."""
    status = entry.get("status")
    output, error = _response(entry.get("result"))
    if status == "success":
        text = output if isinstance(output, str) else ""
        # The shell's own line follows the command's output, which may print such a line too.
        stated = [found.group(1) for found in _EXIT_CODE.finditer(text)]
        code = int(stated[-1]) if stated else None
        return completed(at, position, output, metadata, code, recorded=recorded)
    if status == "error":
        if any(marker in error for marker in _REJECTED_ERRORS):
            return rejected(at, position, error, metadata, recorded=recorded)
        return failed(at, position, error, metadata, recorded=recorded)
    if status == "cancelled":
        if _DENIED in error:
            return rejected(at, position, error, metadata, recorded=recorded)
        return failed(at, position, error or "cancelled", metadata, recorded=recorded)
    return None  # scheduled, executing, awaiting approval: not over


def _response(result: Any) -> tuple[Any, str]:
    """A call's output and its error text, from the function responses it recorded."""
    outputs: list[Any] = []
    errors: list[str] = []
    for part in result if isinstance(result, list) else []:
        answer = part.get("functionResponse") if isinstance(part, dict) else None
        response = answer.get("response") if isinstance(answer, dict) else None
        if isinstance(response, dict):
            if "error" in response:
                errors.append(str(response["error"]))
            if "output" in response:
                outputs.append(response["output"])
    if len(outputs) == 1:
        return outputs[0], "\n".join(errors)
    return (outputs or result), "\n".join(errors)


def _session(header: Any, name: str) -> str:
    session = header.get("sessionId") if isinstance(header, dict) else None
    return session if isinstance(session, str) and session else name


def _about(header: Any, where: str) -> About:
    if not isinstance(header, dict):
        return About()
    started = header.get("startTime")
    session = header.get("sessionId")
    return About(
        agent_session_id=session if isinstance(session, str) and session else None,
        started_at=utc_time(started, f"{where}: startTime") if started else None,
        # A subagent's chat is kept in a folder named by its parent's session: the file's
        # reader (`recognising.load`, by `placed`) names the parent.
        parent_session=SUBAGENT if header.get("kind") == "subagent" else None,
    )
