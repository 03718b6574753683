"""A JSONL log's bytes as lines: each line bounded, read up to where it is asked to stop.

`iter_lines` never holds a line over the event limit (one is refused without
being read whole); `Upto` stops a read at a given byte (where the last whole
append ends, for a reader); `complete_without_newline` tells a final line that
is a whole event from one a crash cut short; `damaged_line` names a line that
cannot be read, with the session it says it belongs to.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO, NoReturn, Protocol, final

from ...core.lifecycle.events import StoredEvent
from ...core.replay.errors import EventDecodeError
from .codec.envelope import MAX_EVENT_BYTES
from .codec.lines import decode_line
from .codec.strict_json import EnvelopeError
from .port import StoreReadError

_CHUNK = 1 << 16


class Readable(Protocol):
    """What `iter_lines` reads from."""

    def read(self, size: int, /) -> bytes:
        """At most ``size`` bytes; none at the end."""
        ...


class Upto:
    """A file read from where it stands up to byte ``end``, and no further."""

    def __init__(self, handle: BinaryIO, end: int) -> None:
        self._handle, self._left = handle, end - handle.tell()

    def read(self, size: int, /) -> bytes:
        """At most ``size`` bytes, none past ``end``."""
        if self._left <= 0:
            return b""
        chunk = self._handle.read(min(size, self._left))
        self._left -= len(chunk)
        return chunk


def iter_lines(
    handle: Readable, path: Path, *, start_line: int = 0
) -> Iterator[tuple[int, bytes, bool]]:
    """``(line number, bytes, terminated)`` for each line, never holding one over the limit."""
    number = start_line
    buffer = b""
    oversized = False
    while True:
        chunk = handle.read(_CHUNK)
        if not chunk:
            break
        buffer += chunk
        # Lines are cut from the buffer by position and the rest kept once per chunk:
        # cutting the buffer after every line would copy it once per line.
        start = 0
        while True:
            newline = buffer.find(b"\n", start)
            if newline < 0:
                break
            number += 1
            line, start = buffer[start : newline + 1], newline + 1
            if oversized:
                oversized = False
                buffer = buffer[start:]
                _raise_oversized(path, number)
            yield number, line, True
        buffer = buffer[start:]
        if len(buffer) > MAX_EVENT_BYTES:
            oversized = True
            buffer = b""
    if oversized:
        _raise_oversized(path, number + 1)
    if buffer:
        yield number + 1, buffer, False


def _raise_oversized(path: Path, line: int) -> NoReturn:
    raise StoreReadError(
        EventDecodeError(
            source=str(path),
            line=line,
            message=f"line is over the limit of {MAX_EVENT_BYTES} bytes",
        ),
        sequence=0,
    )


def complete_without_newline(raw: bytes) -> tuple[StoredEvent, int] | None:
    """A final unterminated line that is a whole event: the event and its length in bytes."""
    # Without the last byte first: a damaged newline that JSON would read as trailing
    # whitespace must still be dropped and replaced, not kept inside the line.
    for length in (len(raw) - 1, len(raw)):
        if length > 0:
            try:
                return decode_line(raw[:length]), length
            except (EnvelopeError, ValueError, TypeError):
                continue
    return None


@final
@dataclass(frozen=True, slots=True)
class DamagedLine:
    """A line of a log that cannot be read as an event: where it is and what is wrong
    (``error``), and the session and sequence its JSON names when it names them (a line
    edited by hand still does): the session it belongs to, as far as it says."""

    error: EventDecodeError
    session_id: str | None
    sequence: int | None


def damaged_line(path: Path, number: int, raw: bytes, message: str) -> DamagedLine:
    """Line ``number`` of the log at ``path``, which cannot be read: ``message`` says why."""
    session: str | None = None
    sequence: int | None = None
    try:
        envelope = json.loads(raw)  # bounded: no line over the event limit is held
    except (ValueError, RecursionError):
        envelope = None
    if isinstance(envelope, dict):
        claimed, number_claimed = envelope.get("session_id"), envelope.get("sequence")
        session = claimed if isinstance(claimed, str) and claimed else None
        sequence = number_claimed if type(number_claimed) is int and number_claimed > 0 else None
    error = EventDecodeError(source=str(path), line=number, message=message)
    return DamagedLine(error, session, sequence)
