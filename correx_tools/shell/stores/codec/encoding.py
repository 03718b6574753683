"""The one rule every store writes by: an event is stored only if it reads back as itself.

`encode_event` turns a `StoredEvent`
into what the stores keep (type, version, the canonical JSON of its data, its
timestamp) and then reads that back with the reader's own code
(`loads_strict`, `decode_payload`,
`parse_timestamp`). Anything that would not come back equal
is refused before a byte is written, with a message naming the field: a
store never acknowledges what it, or any other store, could not read. The
memory, SQLite, PostgreSQL and JSONL stores all call it.
"""

from __future__ import annotations

import json
import math
import re
import sys
import zlib
from collections.abc import Callable
from datetime import UTC
from typing import Any, Final, NamedTuple, final

from ....core.lifecycle.events import (
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolInvocationRequestedEvent,
    undecoded_text,
)
from ....core.tools.request import undecoded_source
from .envelope import (
    ARGUMENTS_AT,
    COMPLETED,
    CURRENT_VERSION,
    MAX_EVENT_BYTES,
    REQUESTED,
    decode_payload,
    event_payload,
    format_timestamp,
    parse_timestamp,
)
from .strict_json import canonical_and_read_back, canonical_json, encode_utf8, is_canonical


@final
class EncodedEvent(NamedTuple):
    """An event as the stores write it, already checked to read back as the same event."""

    type: str
    version: int
    data: str
    """The canonical JSON of the envelope's ``data``."""
    recorded_at: str
    """The timestamp as `format_timestamp` writes it."""


def encode_event(stored: StoredEvent, recorded_at: str | None = None) -> EncodedEvent:
    """The stored form of ``stored``; a ``ValueError`` or ``TypeError`` names what is wrong.

    ``recorded_at`` is the event's timestamp already formatted and checked by
    `encoded_time` (an append's events share one).

    >>> from datetime import UTC, datetime
    >>> from correx_tools.core.lifecycle.events import OpaqueEvent
    >>> when = datetime(2026, 1, 1, tzinfo=UTC)
    >>> encode_event(StoredEvent(session_id="s", sequence=1, recorded_at=when,
    ...                          event=OpaqueEvent(type="note", version=1, data={1: "a"})))
    Traceback (most recent call last):
    ...
    ValueError: note: data has the key 1, not a string: it would read back as '1'
    """
    as_read = _as_read(stored.event)
    body: Any = None
    if as_read is None:
        type_tag, version, data = event_payload(stored.event)
        proven = canonical_and_read_back(data)
        if proven is not None:
            written, body = proven
            text = written.decode("utf-8")
        else:
            try:
                text = canonical_json(data)
            except (TypeError, ValueError, RecursionError):
                raise ValueError(f"{type_tag}: {_unstorable(data)}") from None
    else:
        (type_tag, text), version = as_read, CURRENT_VERSION
    when = encoded_time(stored) if recorded_at is None else recorded_at
    size = line_size(type_tag, version, text, stored.session_id, stored.sequence)
    if size > MAX_EVENT_BYTES:
        raise ValueError(f"{type_tag} event is {size} bytes, over the limit of {MAX_EVENT_BYTES}")
    if nesting_of(text) > MAX_NESTING:
        raise ValueError(
            f"{type_tag}: data nests deeper than {MAX_NESTING} levels, which no store keeps"
        )
    if body is not None:
        # The compiled codec read the text back as the data already (`strict_json`):
        # what is left of the read-back check is the reader's field checks.
        decode_payload(type_tag, version, body, text=text)
    elif as_read is None:
        _check_reads_back(type_tag, version, data, text)
    return EncodedEvent(type_tag, version, text, when)


MAX_NESTING: Final = 100
"""The deepest an event's JSON may nest (objects and arrays). A fixed bound, not whatever
stack a writer has left: what a store takes must read back, and compare equal, from any
reader, however deep in its own calls (a parse takes a level of the interpreter's stack
per level, comparing frozen values several). Tool arguments are held to 64 levels by
default (`correx_tools.core.tools.validation`)."""

# A JSON string's body, unrolled; brackets inside strings are not nesting.
_STRINGS = re.compile(r'"[^"\\]*(?:\\.[^"\\]*)*"')
_BRACKETS = re.compile(r"[\[\]{}]")


def nesting_of(text: str) -> int:
    """How deep the JSON ``text`` nests, or a number no greater than `MAX_NESTING` when it
    cannot be deeper: counted exactly only for a text with more brackets than that."""
    opening = text.count("[") + text.count("{")
    if opening <= MAX_NESTING:
        return opening
    depth = deepest = 0
    for bracket in _BRACKETS.findall(_STRINGS.sub("", text)):
        if bracket in "[{":
            depth += 1
            deepest = max(deepest, depth)
        else:
            depth -= 1
    return deepest


def _check_reads_back(type_tag: str, version: int, data: dict[str, Any], text: str) -> None:
    """A ``ValueError`` naming the field when ``text`` would not read back as ``data``."""
    try:
        # Text json.dumps wrote holds no NaN and no duplicate key: the reader's strict
        # parse would give what the plain one gives.
        body = json.loads(text)
    except RecursionError:
        raise ValueError(f"{type_tag}: data nests deeper than JSON text can be read back") from None
    if body != data:
        raise ValueError(f"{type_tag}: {_difference(data, body)}")
    # The reader's field checks. Given data that reads back equal, an event that
    # passes them reads back equal too: each decoder builds its event from exactly
    # the fields event_payload wrote (tests/test_envelope.py holds the round trip).
    decode_payload(type_tag, version, body, text=text)  # payloads need not be built again


def _as_read(event: object) -> tuple[str, str] | None:
    """``(type, data text)`` of a tool event read from a store whose payload values are not
    decoded yet, when its text is the canonical JSON this event encodes to; else ``None``.

    An import copies events read from a store: their arguments, outputs and
    metadata still wait, undecoded, in the text they were read from
    (`lazy_request`, `lazy_receipt`). When that text spells, around the
    undecoded values, the fields the event holds outside it (its id, names,
    tier, exit code), and is canonical JSON that reads and writes back as
    itself, it is exactly what `encode_event` would write: the values decoded
    from it are the event's. A quote after a comma or a colon cannot be inside
    a JSON string, so the spelled parts match only where the fields are. The
    text is held to its canonical form here, not trusted: a log line's
    checksum says nothing of it (a line written by hand may hold ``1e400``,
    a lone surrogate, unsorted keys), and any of those takes the full path,
    which refuses what no store can keep and writes the rest canonically.
    """
    found = _spelled(event)
    return found if found is not None and is_canonical(found[1]) else None


def _spelled(event: object) -> tuple[str, str] | None:
    """``(type, text)`` of a tool event whose undecoded text spells its other fields."""
    if isinstance(event, ToolInvocationRequestedEvent):
        requested = event
        source = undecoded_source(requested.request)
        if source is None or source[1] != ARGUMENTS_AT:
            return None
        text = source[0]
        head = f'{{"invocation_id":{json_string(requested.invocation_id)},"request":{{"arguments":'
        tail = (
            f',"tool_name":{json_string(requested.request.tool_name)}}},'
            f'"tier":{json_string(requested.tier.value)},'
            f'"tool_name":{json_string(requested.tool_name)}}}'
        )
        return (REQUESTED, text) if text.startswith(head) and text.endswith(tail) else None
    if isinstance(event, ToolExecutionCompletedEvent):
        completed = event
        written = undecoded_text(completed.receipt)
        if written is None:
            return None
        head = (
            f'{{"invocation_id":{json_string(completed.invocation_id)},'
            f'"receipt":{{"exit_code":{completed.receipt.exit_code},"metadata":'
        )
        whole = written.startswith(head) and written.endswith("}}") and _OUTPUT in written
        return (COMPLETED, written) if whole else None
    return None


_OUTPUT = '},"output":'  # metadata is a flat object of strings: its end, then output


def encoded_time(stored: StoredEvent) -> str:
    """The event's ``recorded_at`` as stores write it, checked to read back as itself."""
    when = format_timestamp(stored.recorded_at)
    if stored.recorded_at.tzinfo is UTC:
        return when  # a UTC moment, to the microsecond, reads back from its ISO form as itself
    if parse_timestamp(when) != stored.recorded_at:
        raise ValueError(f"recorded_at {stored.recorded_at!r} would read back as {when}")
    return when


def encode_line(stored: StoredEvent) -> bytes:
    """One JSONL line (newline included) for ``stored``, checked as `encode_event` does."""
    encoded = encode_event(stored)
    return envelope_line(
        encoded.type,
        encoded.version,
        encoded.data,
        encoded.recorded_at,
        stored.session_id,
        stored.sequence,
    )


def line_size(type_tag: str, version: int, data: str, session_id: str, sequence: int) -> int:
    """The most bytes the event's JSONL line can take (its checksum at its widest).

    Every store refuses an event over `MAX_EVENT_BYTES` by this
    measure, so that any store can copy what another accepted into a log.
    """
    fixed = len('{"crc32":4294967295,"data":,"recorded_at":"0000-00-00T00:00:00.000000Z",')
    fixed += len('"sequence":,"session_id":,"type":,"version":}\n')
    return (
        fixed
        + _utf8_size(data)
        + _utf8_size(json_string(session_id))
        + _utf8_size(json_string(type_tag))
        + len(str(sequence))
        + len(str(version))
    )


def _utf8_size(text: str) -> int:
    return len(text) if text.isascii() else len(encode_utf8(text))


def envelope_line(  # noqa: PLR0917  # the envelope's six fields, in its order
    type_tag: str, version: int, data: str, recorded_at: str, session_id: str, sequence: int
) -> bytes:
    """The JSONL line of an envelope whose ``data`` is already canonical JSON text.

    Built as text: the canonical JSON of the whole envelope (keys sorted) embeds
    the canonical JSON of ``data`` as it is. ``crc32`` is taken over the
    envelope without it, as `checksum` does.
    """
    tail = (
        f',"recorded_at":"{recorded_at}","sequence":{sequence},'
        f'"session_id":{json_string(session_id)},"type":{json_string(type_tag)},'
        f'"version":{version}}}'
    )
    body = encode_utf8('{"data":' + data + tail)
    crc = zlib.crc32(body)
    return b'{"crc32":%d,"data":' % crc + body[len('{"data":') :] + b"\n"


json_string: Callable[[str], str] = json.encoder.encode_basestring
"""What ``json.dumps(text, ensure_ascii=False)`` writes for a ``str``, without its call chain."""


# -- naming what is wrong (only on the way to an error) ------------------------------


def _unstorable(value: object) -> str:
    """What in ``value`` JSON cannot hold, with its path (iterative: any depth)."""
    stack: list[tuple[object, str, int]] = [(value, "data", 0)]
    while stack:
        node, path, depth = stack.pop()
        if depth > 900:
            return f"{path} nests deeper than JSON text can be read back"
        if isinstance(node, dict):
            for key, item in node.items():
                if not isinstance(key, str):
                    return f"{path} has the key {key!r}, not a string"
                stack.append((item, f"{path}.{key}", depth + 1))
        elif isinstance(node, list | tuple):
            stack.extend((item, f"{path}[{i}]", depth + 1) for i, item in enumerate(node))
        elif isinstance(node, float) and not math.isfinite(node):
            return f"{path} is {node}, which is not a JSON number"
        elif isinstance(node, int):
            try:
                str(node)
            except ValueError:  # Python writes no integer past its digit limit
                limit = sys.get_int_max_str_digits()
                return f"{path} is an integer of more than {limit} digits, past Python's limit"
        elif not (node is None or isinstance(node, str | int | float | bool)):
            return f"{path} holds a {type(node).__name__}, which is not a JSON value"
    return "data cannot be written as JSON"


def _difference(written: object, read: object) -> str:
    """Where ``read`` (the JSON read back) first differs from ``written``, and how."""
    stack: list[tuple[Any, Any, str]] = [(written, read, "data")]
    while stack:
        a, b, path = stack.pop()
        if isinstance(a, dict) and isinstance(b, dict):
            for key in a:
                if not isinstance(key, str):
                    return (
                        f"{path} has the key {key!r}, not a string: "
                        f"it would read back as {_as_json_key(key)!r}"
                    )
                stack.append((a[key], b.get(key), f"{path}.{key}"))
        elif isinstance(a, list | tuple) and isinstance(b, list):
            stack.extend((x, y, f"{path}[{i}]") for i, (x, y) in enumerate(zip(a, b, strict=False)))
        elif a != b or type(a) is not type(b):
            return f"{path} {a!r:.80} would read back as {b!r:.80}"
    return "data would not read back as written"


def _as_json_key(key: object) -> str:
    """The string ``json.dumps`` writes for a non-string key (``1`` -> ``"1"``)."""
    written: dict[str, Any] = json.loads(json.dumps({key: None}))
    return next(iter(written))
