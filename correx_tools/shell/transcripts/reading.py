"""Reading a transcript file and recognising its format from its content, never its name.

A file that is one JSON document is an OpenHands history, a SWE-agent
trajectory, or an OpenAI or Anthropic message list, told apart by their shapes.
A file of one JSON value a line is a Claude Code session. Everything is parsed
strictly (no ``NaN``, no duplicate keys); a damaged line or document is named
by its line.
"""

from __future__ import annotations

from typing import Any

from ..stores.codec.strict_json import EnvelopeError, loads_strict
from . import claude_code, messages, openhands, swe_agent
from .calls import Transcript, Unreadable

TRIED = (
    "claude-code (JSON Lines of session records), openhands (a list of events, or an object "
    "with a history), swe-agent (an object with a trajectory), openai-chat and "
    "anthropic-messages (a list of messages, or an object with messages, holding tool calls)"
)


def parse(data: bytes, format: str, name: str) -> Transcript:
    """The transcript in ``data``, in ``format`` (or the one recognised, for ``"auto"``)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as error:
        raise Unreadable("", f"not UTF-8 text (byte {error.start})") from None
    if format == claude_code.FORMAT:
        return claude_code.read(_lines(text), name)
    document, problem = _document(text)
    if format == "auto":
        if document is not None:
            found = _by_shape(document, name)
            if found is None and claude_code.looks_like([(1, document)]):
                found = claude_code.read([(1, document)], name)  # a session of one record
            if found is not None:
                return found
        else:
            try:
                records = _lines(text)
            except Unreadable as damaged:
                # Damage on the first line: the file is no JSON Lines file at all, so the
                # document's own error (its line and column) says more.
                first = next((n for n, line in enumerate(text.splitlines(), 1) if line.strip()), 1)
                raise (
                    damaged if damaged.where != f"line {first}" else Unreadable("", problem or "")
                ) from None
            if claude_code.looks_like(records):
                return claude_code.read(records, name)
        raise Unreadable("", f"not a transcript of a known format; tried {TRIED}")
    if document is None:
        raise Unreadable("", problem or "not a JSON document")
    return _as(format, document, name)


def _document(text: str) -> tuple[Any, str | None]:
    """The file as one JSON document, or ``None`` and why it is not one."""
    try:
        return loads_strict(text), None
    except EnvelopeError as error:
        return None, str(error)


def _lines(text: str) -> list[tuple[int, Any]]:
    """Each non-blank line's JSON value with its line number; a damaged line is named."""
    records = []
    for number, line in enumerate(text.splitlines(), start=1):
        if line.strip():
            try:
                records.append((number, loads_strict(line)))
            except EnvelopeError as error:
                raise Unreadable(f"line {number}", str(error)) from None
    return records


def _by_shape(document: Any, name: str) -> Transcript | None:
    if swe_agent.looks_like(document):
        return swe_agent.read(document, name)
    if openhands.events_of(document) is not None:
        return openhands.read(document, name)
    found = messages.messages_of(document)
    if found is not None:
        kind = messages.kind_of(found[0])
        if kind is not None:
            return messages.read(document, name, kind)
    return None


def _as(format: str, document: Any, name: str) -> Transcript:
    """The document read as the format the caller named; a clear error if it is not one."""
    if format == swe_agent.FORMAT and swe_agent.looks_like(document):
        return swe_agent.read(document, name)
    if format == openhands.FORMAT and openhands.events_of(document) is not None:
        return openhands.read(document, name)
    if format in (messages.OPENAI, messages.ANTHROPIC) and messages.messages_of(document):
        return messages.read(document, name, format)
    raise Unreadable("", f"not a {format} transcript")
