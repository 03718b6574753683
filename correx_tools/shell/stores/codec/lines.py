"""One event as one JSONL line, read back: every line strictly, a line in this library's
own layout without re-encoding it.

Every line is parsed strictly (`loads_strict`: no ``NaN``,
no duplicate key, bounded depth). What the checksum is checked over then
depends on the line's layout. A line this library wrote has the canonical
layout — ``{"crc32":N,"data":...,"recorded_at":...,"version":N}``, keys sorted,
no spaces — and its ``crc32`` is taken over its own bytes after the checksum
field, so those bytes are checked as they are: no JSON is written again to read
a line. Any other line (another writer's spacing or key order) is checked the
general way: against the canonical JSON of what it parses to
(`from_envelope`). Either way a changed byte is caught, and
the same values are accepted.

A line in the canonical layout also yields its ``data`` as text, so the
payload values decode from it when first used (see
`decode_payload`).
"""

from __future__ import annotations

import re
import zlib

from ....core.lifecycle.checked import checked_stored_event
from ....core.lifecycle.events import StoredEvent
from ....core.tools.ids import SessionId
from .envelope import decode_payload, from_envelope, parse_timestamp
from .strict_json import loads_strict

_HEAD = re.compile(rb'\{"crc32":(?:0|[1-9][0-9]{0,9}),"data":')
# A JSON string's body, unrolled (runs of plain bytes between escapes) rather than
# one alternation per byte: the same strings, matched far faster when they are long.
_STRING = rb'"[^"\\]*(?:\\.[^"\\]*)*"'
_TAIL = re.compile(
    rb',"recorded_at":"[^"\\]*","sequence":[1-9][0-9]*,'
    rb'"session_id":' + _STRING + rb',"type":' + _STRING + rb',"version":(?:0|[1-9][0-9]*)\}\n?'
)
_KEYS = frozenset({"crc32", "data", "recorded_at", "sequence", "session_id", "type", "version"})
_DATA_KEY_CRC = zlib.crc32(b'{"data":')


def decode_line(line: bytes) -> StoredEvent:
    """The stored event of one JSONL line; an ``EnvelopeError`` says what is wrong."""
    envelope = loads_strict(line)
    event = _in_own_layout(line, envelope)
    return event if event is not None else from_envelope(envelope)


def _in_own_layout(line: bytes, envelope: object) -> StoredEvent | None:
    """The event of a line in the canonical layout whose checksum holds over its bytes;
    ``None`` for any other line (`from_envelope` then decides)."""
    head = _HEAD.match(line)
    if head is None or type(envelope) is not dict or envelope.keys() != _KEYS:
        return None
    # The envelope's other strings cannot hold an unescaped quote, so the last
    # ',"recorded_at":"' starts the tail; with exactly these seven keys, what lies
    # between the head and the tail is the data object's own text.
    start, tail = head.end(), line.rfind(b',"recorded_at":"')
    if tail < start or _TAIL.fullmatch(line, tail) is None:
        return None
    end = len(line) - 1 if line.endswith(b"\n") else len(line)  # a final line may lack it
    type_tag, version, data = envelope["type"], envelope["version"], envelope["data"]
    session, sequence = envelope["session_id"], envelope["sequence"]
    if (
        zlib.crc32(line[start:end], _DATA_KEY_CRC) != envelope["crc32"]
        or not type_tag
        or not session
        or type(data) is not dict
    ):
        return None
    return checked_stored_event(
        SessionId(session),
        sequence,
        parse_timestamp(envelope["recorded_at"]),
        decode_payload(type_tag, version, data, text=line[start:tail].decode("utf-8")),
    )
