"""Envelopes: stable tags, exact timestamps, strict JSON, upcasters, opaque events."""

from __future__ import annotations

import json
import pickle
import re
import zlib
from collections import OrderedDict
from dataclasses import replace
from datetime import UTC, datetime

import pytest
from hypothesis import given
from hypothesis import strategies as st

from correx_tools import (
    OpaqueEvent,
    SessionId,
    StoredEvent,
    Tier,
    ToolExecutionCompletedEvent,
    ToolInvocationRequestedEvent,
)
from correx_tools.core.tools.request import undecoded_source
from correx_tools.shell.stores.codec import envelope
from correx_tools.shell.stores.codec.encoding import encode_event, encode_line
from correx_tools.shell.stores.codec.envelope import decode_payload
from correx_tools.shell.stores.codec.lines import decode_line
from correx_tools.shell.stores.codec.rows import decode_written_row
from correx_tools.shell.stores.codec.strict_json import EnvelopeError, loads_strict

from .strategies import EPOCH, completed, failed, rejected, requested, sessions, started


def stored(event: object, when: datetime = EPOCH) -> StoredEvent:
    return StoredEvent(session_id=SessionId("s"), sequence=1, recorded_at=when, event=event)


@pytest.mark.parametrize(
    ("event", "tag"),
    [
        (requested("a"), "tool.invocation.requested"),
        (started("a"), "tool.execution.started"),
        (completed("a"), "tool.execution.completed"),
        (failed("a"), "tool.execution.failed"),
        (rejected("a"), "tool.execution.rejected"),
    ],
)
def test_tool_events_have_stable_tags_and_a_version(event: object, tag: str) -> None:
    line = json.loads(encode_line(stored(event)))
    assert line["type"] == tag
    assert line["version"] == 1
    assert set(line) == {
        "type",
        "version",
        "data",
        "session_id",
        "sequence",
        "recorded_at",
        "crc32",
    }


def test_timestamps_are_utc_with_microseconds_and_round_trip_exactly() -> None:
    when = datetime(2026, 7, 8, 9, 10, 11, 12, tzinfo=UTC)
    line = encode_line(stored(started("a"), when))
    assert b'"recorded_at":"2026-07-08T09:10:11.000012Z"' in line
    assert decode_line(line).recorded_at == when


@given(sessions())
def test_every_event_round_trips(events: list[StoredEvent]) -> None:
    for event in events:
        if isinstance(event.event, dict):
            continue  # plain dicts are not events a store accepts
        assert decode_line(encode_line(event)) == event


@given(sessions(), st.text(min_size=1, max_size=8))
def test_an_event_read_back_encodes_as_the_same_event_built_from_values(
    events: list[StoredEvent], other_id: str
) -> None:
    """An event read from a store keeps its payload text undecoded; encoding it again takes
    that text only when it is exactly what its values encode to, changed fields or not."""
    for written in events:
        if isinstance(written.event, dict):
            continue
        encoded = encode_event(written)
        row = (written.sequence, encoded.recorded_at, encoded.type, encoded.version, encoded.data)
        read = decode_written_row("test", written.session_id, row)
        assert encode_event(read) == encoded
        # The same event with values decoded (pickle rebuilds it from values).
        assert encode_event(pickle.loads(pickle.dumps(read))) == encoded
        event = read.event
        if isinstance(event, ToolInvocationRequestedEvent | ToolExecutionCompletedEvent):
            # An undecoded payload under another id: the text no longer spells the event.
            moved = replace(
                read,
                event=replace(
                    decode_written_row("test", written.session_id, row).event,
                    invocation_id=other_id,
                ),
            )
            by_values = replace(written, event=replace(written.event, invocation_id=other_id))
            assert encode_event(moved) == encode_event(by_values)


def _own_layout_line(type_tag: str, data: str) -> bytes:
    """A log line in this library's layout holding ``data`` as given, its checksum right."""
    tail = (
        f',"recorded_at":"2026-01-01T00:00:01.000000Z","sequence":1,"session_id":"s",'
        f'"type":"{type_tag}","version":1}}'
    )
    body = ('{"data":' + data + tail).encode()
    return b'{"crc32":%d,"data":' % zlib.crc32(body) + body[len('{"data":') :] + b"\n"


@pytest.mark.parametrize(
    "arguments",
    [
        '{"y":1e400}',  # reads as inf: no store keeps it
        '{"x":"\\ud800"}',  # a lone surrogate: not text
        '{"b":1,"a":2}',  # keys out of order
        '{"a": 1}',  # a space
        '{"a":"\\u00e9","n":1.00}',  # an escape and a number spelled otherwise
        '{"a":[1,{"b":null}]}',  # canonical already
    ],
)
def test_a_hand_written_log_line_is_encoded_as_its_values_are(arguments: str) -> None:
    """A line's checksum says nothing of its data's form: a copy of an event read from it
    is refused, or written canonically, exactly as the same event built from values."""
    data = (
        '{"invocation_id":"i","request":{"arguments":' + arguments + ',"tool_name":"t"},'
        '"tier":"auto","tool_name":"t"}'
    )
    read = decode_line(_own_layout_line("tool.invocation.requested", data))
    assert isinstance(read.event, ToolInvocationRequestedEvent)
    assert undecoded_source(read.event.request) is not None  # still the line's own text
    try:
        got: object = encode_event(read)
    except ValueError as refused:
        got = str(refused)
    by_values = pickle.loads(pickle.dumps(read))  # decodes the arguments: after the above
    try:
        expected: object = encode_event(by_values)
    except ValueError as refused:
        expected = str(refused)
    assert got == expected


def test_unknown_types_become_opaque_and_encode_back_byte_identical() -> None:
    line = (
        b'{"data":{"b":[1,{"c":null}],"a":"\xc3\xa9"},'
        b'"recorded_at":"2026-01-01T00:00:00.000000Z","sequence":1,'
        b'"session_id":"s","type":"approval.granted","version":4}\n'
    )
    decoded = decode_line(line)
    assert decoded.event == OpaqueEvent(
        type="approval.granted", version=4, data={"a": "é", "b": [1, {"c": None}]}
    )
    again = json.loads(encode_line(decoded))
    original = json.loads(line)
    assert {k: v for k, v in again.items() if k != "crc32"} == original


def test_strict_json_refuses_nan_infinity_duplicates_and_huge_numbers() -> None:
    for text, words in [
        ('{"a":NaN}', "NaN"),
        ('{"a":-Infinity}', "Infinity"),
        ('{"a":1,"a":1}', "duplicate"),
        ('{"a":' + "9" * 5000 + "}", "invalid JSON"),
        ("[" * 100_000 + "]" * 100_000, "nested"),
    ]:
        with pytest.raises(EnvelopeError, match=words):
            loads_strict(text)


def test_strict_json_reads_whitespace_around_one_value_and_nothing_after_it() -> None:
    # Stored text has nothing around the value (the fast path); other JSON takes the slow one.
    assert loads_strict(' \n{"a": [1, 2]}\n') == {"a": [1, 2]}
    assert loads_strict(b'{"a":1}\n') == {"a": 1}
    for text, words in [
        ('{"a":1} {"b":2}', "Extra data"),
        ('{"a":1}x', "Extra data"),
        ("", r"no value \(empty, or white space only\)"),
        (" \n\t\r", "no value"),
        ("\u00a0", "Expecting value"),  # not white space to JSON
        ("[", "Expecting value"),
        (' {"a":1,"a":2}', "duplicate"),
        ('{"a":{"b":1,"b":1}}', "duplicate"),
    ]:
        with pytest.raises(EnvelopeError, match=words):
            loads_strict(text)


def test_upcasters_bring_old_versions_up_to_date() -> None:
    def v0_to_v1(data: dict[str, object]) -> dict[str, object]:
        return {"invocation_id": data["id"], "reason": data["why"], "recoverable": False}

    event = decode_payload(
        "tool.execution.failed",
        0,
        {"id": "a", "why": "old"},
        {("tool.execution.failed", 0): v0_to_v1},
    )
    assert event == failed("a", "old", recoverable=False)
    with pytest.raises(EnvelopeError, match="no upcaster"):
        decode_payload("tool.execution.failed", 0, {"id": "a"})


def test_an_upcaster_may_return_dict_subclasses() -> None:
    def v0_to_v1(data: dict[str, object]) -> dict[str, object]:
        request = OrderedDict(tool_name="read_file", arguments=OrderedDict(path="a.txt"))
        return OrderedDict(invocation_id="a", tool_name="read_file", tier="auto", request=request)

    event = decode_payload(envelope.REQUESTED, 0, {}, {(envelope.REQUESTED, 0): v0_to_v1})
    assert isinstance(event, ToolInvocationRequestedEvent)
    assert event.request.arguments == {"path": "a.txt"}
    assert event.tier is Tier.AUTO
    with pytest.raises(EnvelopeError, match="newer"):
        decode_payload("tool.execution.failed", 2, {})


@pytest.mark.parametrize(
    ("data", "words"),
    [
        ({}, "lacks 'invocation_id'"),
        ({"invocation_id": ""}, "non-empty"),
        ({"invocation_id": 5}, "non-empty"),
    ],
)
def test_bad_event_data_names_the_field(data: dict[str, object], words: str) -> None:
    with pytest.raises(EnvelopeError, match=words):
        decode_payload(envelope.STARTED, 1, data)


@pytest.mark.parametrize(
    ("tier", "words"),
    [
        ("root", "tier 'root' is not one of auto, confirm, elevated"),
        (["auto"], "tier"),
        (None, "tier"),
    ],
)
def test_an_unknown_tier_is_named(tier: object, words: str) -> None:
    data = {
        "invocation_id": "a",
        "tool_name": "read_file",
        "tier": tier,
        "request": {"tool_name": "read_file", "arguments": {}},
    }
    with pytest.raises(EnvelopeError, match=re.escape(words)):
        decode_payload(envelope.REQUESTED, 1, data)


def test_bad_timestamps_are_refused() -> None:
    for text in [
        "2026-01-01T00:00:00Z",
        "2026-01-01 00:00:00.000000Z",
        "2026-13-01T00:00:00.000000Z",
        "2026-01-01T00:00:00.00000\u0661Z",  # an Arabic-Indic digit one
        "2026-01-01T00:00:00,000000Z",
        5,
    ]:
        with pytest.raises(EnvelopeError, match="recorded_at"):
            envelope.parse_timestamp(text)
