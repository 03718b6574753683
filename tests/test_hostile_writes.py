"""What a store acknowledges, every store can read back: hostile writes through the front door.

Values that no reader could decode are refused when they are built, where the
value type can tell; everything else is refused by the stores' one write rule
(``shell/stores/encoding.py``: encode, then read back with the reader's own code)
as an ``INVALID_EVENT`` naming the field, before anything is written. After
each refusal, a new store object on the same file appends and reads as
before: one bad event never blocks a store.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from datetime import UTC, datetime, timedelta, timezone
from pathlib import Path

import pytest

from correx_tools import (
    AppendErrorKind,
    DefaultToolRepository,
    EventReplayer,
    InvocationId,
    JsonlEventLog,
    OpaqueEvent,
    SessionId,
    SQLiteEventStore,
    StoredEvent,
    Tier,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolReceipt,
    ToolRequest,
)
from correx_tools.shell.stores.codec.encoding import MAX_NESTING, encode_line
from correx_tools.shell.stores.codec.envelope import checksum
from correx_tools.shell.stores.codec.lines import decode_line
from correx_tools.shell.stores.codec.strict_json import EnvelopeError
from correx_tools.shell.stores.port import EventStore

from .strategies import requested, started

S1 = SessionId("session-1")
WHEN = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)

# -- refused where the value is built -------------------------------------------------


def opaque_requested(invocation: str) -> OpaqueEvent:
    """A Requested event dressed as an opaque one, as a hostile writer would build it."""
    data = {
        "invocation_id": invocation,
        "tool_name": "t",
        "tier": "auto",
        "request": {"tool_name": "t", "arguments": {}},
    }
    return OpaqueEvent(type="tool.invocation.requested", version=1, data=data)


BUILT_BADLY: dict[str, tuple[Callable[[], object], type[Exception], str]] = {
    "opaque type ''": (lambda: OpaqueEvent(type="", version=1), ValueError, "type must not be"),
    "opaque type 5": (lambda: OpaqueEvent(type=5, version=1), TypeError, "type must be a str"),  # type: ignore[arg-type]
    "opaque version -1": (
        lambda: OpaqueEvent(type="note", version=-1),
        ValueError,
        "version must be from 0",
    ),
    "opaque version True": (
        lambda: OpaqueEvent(type="note", version=True),
        TypeError,
        "version must be an int, not bool",
    ),
    "opaque version 1.5": (
        lambda: OpaqueEvent(type="note", version=1.5),  # type: ignore[arg-type]
        TypeError,
        "not float",
    ),
    "opaque version '1'": (
        lambda: OpaqueEvent(type="note", version="1"),  # type: ignore[arg-type]
        TypeError,
        "not str",
    ),
    "opaque version 2**40": (
        lambda: OpaqueEvent(type="note", version=2**40),
        ValueError,
        "version must be from 0 to 2147483647",
    ),
    "opaque type with NUL": (
        lambda: OpaqueEvent(type="a\x00b", version=1),
        ValueError,
        "NUL",
    ),
    "opaque built-in tag, newer version": (
        lambda: OpaqueEvent(type="tool.execution.started", version=2, data={"invocation_id": "a"}),
        ValueError,
        "build a ToolExecutionStartedEvent",
    ),
    "opaque built-in tag, data the decoder refuses": (
        lambda: OpaqueEvent(type="tool.execution.started", version=1, data={}),
        ValueError,
        "tool event's own tag",
    ),
    "opaque built-in Requested tag (item 2)": (
        lambda: opaque_requested("x"),
        ValueError,
        "build a ToolInvocationRequestedEvent",
    ),
    "started id ''": (
        lambda: ToolExecutionStartedEvent(invocation_id=InvocationId("")),
        ValueError,
        "invocation id must not be empty",
    ),
    "started id 5": (
        lambda: ToolExecutionStartedEvent(invocation_id=5),  # type: ignore[arg-type]
        TypeError,
        "invocation id must be a str",
    ),
    "failed recoverable 'yes'": (
        lambda: ToolExecutionFailedEvent(
            invocation_id=InvocationId("a"),
            reason="r",
            recoverable="yes",  # type: ignore[arg-type]
        ),
        TypeError,
        "recoverable must be a bool",
    ),
    "receipt exit code True": (
        lambda: ToolReceipt(exit_code=True),
        TypeError,
        "exit_code must be an int",
    ),
    "requested tool name differs from the request's (item 3)": (
        lambda: ToolInvocationRequestedEvent(
            invocation_id=InvocationId("q"),
            tool_name="read_file",
            tier=Tier.AUTO,
            request=ToolRequest(tool_name="write_file"),
        ),
        ValueError,
        "differs from the request's tool_name 'write_file'",
    ),
    "recorded_at in year 1 at +05:00": (
        lambda: StoredEvent(
            session_id=S1,
            sequence=1,
            recorded_at=datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5))),
            event=started("a"),
        ),
        ValueError,
        "has no UTC equivalent",
    ),
}


@pytest.mark.parametrize("case", sorted(BUILT_BADLY))
def test_a_value_no_reader_could_decode_cannot_be_built(case: str) -> None:
    build, error, words = BUILT_BADLY[case]
    with pytest.raises(error, match=words):
        build()


# -- refused by the stores' write rule, in every store ---------------------------------


def reopen(store: EventStore) -> EventStore:
    """A new store object on the same file (the same object for memory and PostgreSQL)."""
    if isinstance(store, JsonlEventLog):
        return JsonlEventLog(store.path)
    if isinstance(store, SQLiteEventStore):
        return SQLiteEventStore(store.path)
    return store


def deep(levels: int) -> dict[str, object]:
    value: dict[str, object] = {}
    for _ in range(levels):
        value = {"a": value}
    return value


REFUSED_BY_STORES: dict[str, tuple[object, str]] = {
    "a non-string key": (OpaqueEvent(type="note", version=1, data={1: "a"}), "data has the key 1"),
    "NaN in the data": (
        OpaqueEvent(type="note", version=1, data={"x": [float("nan")]}),
        "data.x[0] is nan",
    ),
    "an integer past Python's digit limit": (
        requested("inv-huge", n={"deep": [0, 10**5000]}),
        "data.request.arguments.n.deep[1] is an integer of more than",
    ),
    "a set in the arguments": (
        requested("inv-set", paths={"a", "b"}),
        "data.request.arguments.paths holds a set",
    ),
    "data nested 5,000 deep": (
        OpaqueEvent(type="note", version=1, data=deep(5000)),
        "nests deeper",
    ),
    "data nested one level past the bound": (
        OpaqueEvent(type="note", version=1, data=deep(MAX_NESTING)),  # with data's own level
        f"nests deeper than {MAX_NESTING} levels",
    ),
    "an output over the size limit": (
        ToolExecutionCompletedEvent(
            invocation_id=InvocationId("inv-big"), receipt=ToolReceipt(output="x" * (1 << 20))
        ),
        "over the limit",
    ),
}


@pytest.mark.parametrize("case", sorted(REFUSED_BY_STORES))
def test_a_store_refuses_what_it_could_not_read_back_and_stays_usable(
    store: EventStore, case: str
) -> None:
    event, words = REFUSED_BY_STORES[case]
    store.append(S1, [requested("inv-0")], expected_sequence=0).unwrap()
    error = store.append(S1, [started("inv-0"), event], expected_sequence=1).failure()
    assert error.kind is AppendErrorKind.INVALID_EVENT
    assert words in error.message
    assert "sequence 3" in error.message
    again = reopen(store)
    assert [e.sequence for e in again.read(S1)] == [1]
    assert again.append(S1, [started("inv-0")], expected_sequence=1).unwrap()[0].sequence == 2
    assert [e.event for e in reopen(store).read(S1)] == [requested("inv-0"), started("inv-0")]


def test_a_recorded_at_that_cannot_be_expressed_is_an_append_error(store: EventStore) -> None:
    before_utc = datetime(1, 1, 1, tzinfo=timezone(timedelta(hours=5)))
    error = store.append(S1, [started("a")], expected_sequence=0, recorded_at=before_utc).failure()
    assert error.kind is AppendErrorKind.INVALID_EVENT
    assert "recorded_at" in error.message
    assert store.sessions() == ()


@pytest.mark.parametrize(
    "when",
    [
        datetime(999, 1, 1, tzinfo=UTC),
        datetime(1, 1, 1, tzinfo=UTC),
        datetime(9999, 12, 31, 23, 59, 59, 999999, tzinfo=UTC),
    ],
)
def test_every_year_a_store_acknowledges_reads_back_exactly(
    store: EventStore, when: datetime
) -> None:
    written = store.append(
        S1, [OpaqueEvent(type="note", version=1)], expected_sequence=0, recorded_at=when
    ).unwrap()
    assert list(reopen(store).read(S1)) == list(written)
    assert next(iter(reopen(store).read(S1))).recorded_at == when
    line = json.loads(encode_line(written[0]))
    assert line["recorded_at"].startswith(f"{when.year:04d}-")


def test_opaque_events_with_a_built_in_tag_never_share_an_invocation_id(tmp_path: Path) -> None:
    """Item 2: such an event cannot be built, so it cannot slip past the id index."""
    store = SQLiteEventStore(tmp_path / "events.sqlite")
    store.append(S1, [requested("shared")], expected_sequence=0).unwrap()
    with pytest.raises(ValueError, match="tool event's own tag"):
        opaque_requested("shared")
    repository = DefaultToolRepository(EventReplayer(store))
    assert repository.check_unique_invocations().unwrap() is None


# -- data from elsewhere: nothing is dropped without a word (item 4) --------------------


def foreign_line(data: dict[str, object], *, crc: bool) -> bytes:
    """A JSONL line as another writer might produce it, checksummed or not."""
    event = started("a")
    base = json.loads(
        encode_line(StoredEvent(session_id=S1, sequence=1, recorded_at=WHEN, event=event))
    )
    base["data"] = data
    del base["crc32"]
    if crc:
        base["crc32"] = checksum(base)
    return json.dumps(base).encode() + b"\n"


@pytest.mark.parametrize("crc", [True, False])
def test_unknown_fields_in_a_known_events_data_are_refused_not_dropped(crc: bool) -> None:
    line = foreign_line({"invocation_id": "a", "note": "kept?"}, crc=crc)
    with pytest.raises(EnvelopeError, match="unknown fields 'note'"):
        decode_line(line)


def test_unknown_fields_in_a_request_or_receipt_are_refused() -> None:
    requested_line = json.loads(
        encode_line(StoredEvent(session_id=S1, sequence=1, recorded_at=WHEN, event=requested("a")))
    )
    requested_line["data"]["request"]["extra"] = 1
    del requested_line["crc32"]
    with pytest.raises(EnvelopeError, match=r"data.request has unknown fields 'extra'"):
        decode_line(json.dumps(requested_line).encode())
    done = ToolExecutionCompletedEvent(invocation_id=InvocationId("a"), receipt=ToolReceipt())
    completed_line = json.loads(
        encode_line(StoredEvent(session_id=S1, sequence=2, recorded_at=WHEN, event=done))
    )
    completed_line["data"]["receipt"]["stderr"] = "x"
    del completed_line["crc32"]
    with pytest.raises(EnvelopeError, match=r"data.receipt has unknown fields 'stderr'"):
        decode_line(json.dumps(completed_line).encode())


def test_a_line_without_a_checksum_is_read_strictly_and_written_back_with_one(
    tmp_path: Path,
) -> None:
    source = tmp_path / "from-elsewhere.jsonl"
    source.write_bytes(foreign_line({"invocation_id": "a"}, crc=False))
    (event,) = list(JsonlEventLog(source).read(S1))
    target = JsonlEventLog(tmp_path / "copy.jsonl")
    target.import_events([event]).unwrap()
    written = json.loads((tmp_path / "copy.jsonl").read_bytes())
    assert "crc32" in written
    assert decode_line((tmp_path / "copy.jsonl").read_bytes()) == event


def test_data_as_deep_as_the_bound_reads_back_from_deep_in_a_callers_stack(
    store: EventStore,
) -> None:
    event = OpaqueEvent(type="note", version=1, data=deep(MAX_NESTING - 1))
    store.append(S1, [event], expected_sequence=0).unwrap()

    def read_from(depth: int) -> list[object]:
        if depth:
            return read_from(depth - 1)
        return [e.event for e in reopen(store).read(S1)]

    read = read_from(400)  # a reader well inside its own calls; compared out here
    assert read == [event]
