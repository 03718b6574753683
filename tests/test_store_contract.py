"""One contract, every store: the same tests run against each adapter."""

from __future__ import annotations

import enum
import sqlite3
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from returns.result import Success

from correx_tools import (
    AppendErrorKind,
    EventReplayer,
    InMemoryEventStore,
    OpaqueEvent,
    SessionId,
    StoredEvent,
    ToolInvocationStatus,
    ToolProjector,
    fold_events,
)
from correx_tools.shell.stores.port import EventStore

from .strategies import completed, failed, rejected, requested, started

S1, S2 = SessionId("session-1"), SessionId("session-2")
WHEN = datetime(2026, 3, 4, 5, 6, 7, 891011, tzinfo=UTC)


def test_round_trip_keeps_every_field_and_timestamp_exactly(store: EventStore) -> None:
    events = [
        requested("a", path="src/ü.py", lines=[1, 2]),
        started("a"),
        completed("a", output={"n": [1, None]}),
        requested("b"),
        failed("b", "exit 2", recoverable=False),
        requested("c"),
        rejected("c", "policy"),
    ]
    written = store.append(S1, events, expected_sequence=0, recorded_at=WHEN).unwrap()
    assert [e.sequence for e in written] == list(range(1, 8))
    read = list(store.read(S1))
    assert read == list(written)
    assert read[0].recorded_at == WHEN
    assert read[0].recorded_at.microsecond == 891011
    assert [e.event for e in read] == events


def test_recorded_at_defaults_to_now_in_utc(store: EventStore) -> None:
    before = datetime.now(UTC)
    (event,) = store.append(S1, [requested("a")], expected_sequence=0).unwrap()
    assert before <= event.recorded_at <= datetime.now(UTC)
    assert event.recorded_at.tzinfo is UTC


def test_a_stale_expected_sequence_is_a_conflict_and_writes_nothing(store: EventStore) -> None:
    store.append(S1, [requested("a")], expected_sequence=0).unwrap()
    error = store.append(S1, [started("a")], expected_sequence=0).failure()
    assert error.kind is AppendErrorKind.CONFLICT
    assert "expected it at sequence 0, but the store holds 1 event" in error.message
    assert len(list(store.read(S1))) == 1
    assert (
        store.append(S1, [started("a")], expected_sequence=2).failure().kind
        is AppendErrorKind.CONFLICT
    )


@pytest.mark.parametrize(
    "expected", [-1, False, True, 1.0, "0", None, 2**63, pytest.param(10**5000, id="huge")]
)
def test_an_expected_sequence_that_is_no_sequence_is_named_and_writes_nothing(
    store: EventStore, expected: object
) -> None:
    store.append(S1, [requested("a")], expected_sequence=0).unwrap()
    error = store.append(S1, [started("a")], expected_sequence=expected).failure()  # type: ignore[arg-type]
    assert error.kind is AppendErrorKind.INVALID_EVENT
    shown = "an integer past that" if isinstance(expected, int) and expected > 9 else repr(expected)
    assert (
        "expected_sequence must be an int from 0 to 2**63 - 1 (the session's last sequence), "
        f"got {shown}" in error.message
    )
    assert len(list(store.read(S1))) == 1


def test_any_integer_type_is_an_expected_sequence(store: EventStore) -> None:
    class Known(enum.IntEnum):
        NONE = 0
        ONE = 1

    store.append(S1, [requested("a")], expected_sequence=Known.NONE).unwrap()
    (event,) = store.append(S1, [started("a")], expected_sequence=Known.ONE).unwrap()
    assert event.sequence == 2 and type(event.sequence) is int


def test_an_append_is_all_or_nothing(store: EventStore) -> None:
    store.append(S1, [requested("a")], expected_sequence=0).unwrap()
    # The third event of the batch reuses an id: the first two must not land either.
    error = store.append(
        S1, [requested("b"), started("b"), requested("a")], expected_sequence=1
    ).failure()
    assert error.kind is AppendErrorKind.DUPLICATE_INVOCATION
    assert [e.sequence for e in store.read(S1)] == [1]
    assert store.append(S1, [requested("b")], expected_sequence=1).unwrap()[0].sequence == 2


def test_invocation_ids_are_unique_across_sessions(store: EventStore) -> None:
    store.append(S1, [requested("a")], expected_sequence=0).unwrap()
    error = store.append(S2, [requested("a")], expected_sequence=0).failure()
    assert error.kind is AppendErrorKind.DUPLICATE_INVOCATION
    assert error.other_session == S1
    assert "session-1" in error.message
    assert store.sessions() == (S1,)


def test_unknown_events_are_kept_opaque_and_written_back_unchanged(
    store: EventStore, tmp_path: Path
) -> None:
    opaque = OpaqueEvent(type="approval.granted", version=3, data={"by": "ana", "scope": ["a", 1]})
    store.append(S1, [opaque, requested("a")], expected_sequence=0, recorded_at=WHEN).unwrap()
    first = next(store.read(S1))
    assert first.event == opaque
    replay = fold_events(ToolProjector(), store.read(S1)).unwrap()
    assert len(replay.state) == 1


def test_events_that_have_no_envelope_are_refused_before_writing(store: EventStore) -> None:
    error = store.append(S1, [requested("a"), object()], expected_sequence=0).failure()
    assert error.kind is AppendErrorKind.INVALID_EVENT
    assert "sequence 2" in error.message
    assert store.sessions() == ()


def test_events_over_one_mebibyte_are_refused_before_writing(store: EventStore) -> None:
    error = store.append(S1, [requested("a", blob="x" * (1 << 20))], expected_sequence=0).failure()
    assert error.kind is AppendErrorKind.INVALID_EVENT
    assert "over the limit" in error.message
    assert list(store.read(S1)) == []


def test_read_after_returns_only_later_events(store: EventStore) -> None:
    store.append(S1, [requested("a"), started("a"), completed("a")], expected_sequence=0).unwrap()
    assert [e.sequence for e in store.read(S1, after=1)] == [2, 3]
    assert list(store.read(S1, after=3)) == []
    assert list(store.read(S1, after=-1)) == list(store.read(S1))  # before the first: all
    assert list(store.read(SessionId("nobody"))) == []


def test_sessions_are_listed_sorted(store: EventStore) -> None:
    store.append(S2, [requested("b")], expected_sequence=0).unwrap()
    store.append(S1, [requested("a")], expected_sequence=0).unwrap()
    assert store.sessions() == (S1, S2)


def test_import_keeps_sequences_and_times_and_refuses_gaps(store: EventStore) -> None:
    source = InMemoryEventStore()
    source.append(
        S1, [requested("a"), started("a")], expected_sequence=0, recorded_at=WHEN
    ).unwrap()
    source.append(
        S1, [completed("a")], expected_sequence=2, recorded_at=WHEN + timedelta(seconds=1)
    ).unwrap()
    events = list(source.read(S1))
    assert store.import_events(events[:2]).unwrap() == 2
    assert store.import_events(events[2:]).unwrap() == 1
    assert list(store.read(S1)) == events
    # Again: would overwrite. A gap: refused. Nothing written either time.
    assert store.import_events(events[:1]).failure().kind is AppendErrorKind.GAP
    gap = source.append(S2, [requested("z"), started("z")], expected_sequence=0).unwrap()
    assert store.import_events(gap[1:]).failure().kind is AppendErrorKind.GAP
    assert store.sessions() == (S1,)


def test_a_source_that_fails_part_way_is_its_own_error_and_nothing_is_written(
    store: EventStore,
) -> None:
    source = InMemoryEventStore()
    source.append(S1, [requested(f"c{n}") for n in range(5)], expected_sequence=0).unwrap()

    def locked_part_way() -> Iterator[StoredEvent]:
        yield from list(source.read(S1))[:3]
        raise sqlite3.OperationalError("database is locked")  # the source's, not the store's

    with pytest.raises(sqlite3.OperationalError, match="database is locked"):
        store.import_events(locked_part_way())
    assert store.sessions() == ()


def test_replaying_from_the_store_equals_the_pure_fold(store: EventStore) -> None:
    events = [requested("a"), started("a"), completed("a"), requested("b"), started("b")]
    written = store.append(S1, events, expected_sequence=0).unwrap()
    replay = EventReplayer(store).replay(S1, ToolProjector()).unwrap()
    assert replay.state == fold_events(ToolProjector(), written).unwrap().state
    assert replay.state.get("b").unwrap().status is ToolInvocationStatus.STARTED  # type: ignore[arg-type]
    assert isinstance(EventReplayer(store).replay(SessionId("none"), ToolProjector()), Success)


def check_a_large_batch_is_one_transaction(store: EventStore, size: int) -> None:
    batch = [requested(f"bulk-{i}") for i in range(size)]
    written = store.append(S1, batch, expected_sequence=0).unwrap()
    assert (written[0].sequence, written[-1].sequence) == (1, size)
    # A second batch as large, refused by its very last event: none of it lands.
    doomed = [requested(f"more-{i}") for i in range(size - 1)] + [requested("bulk-0")]
    error = store.append(S1, doomed, expected_sequence=size).failure()
    assert error.kind is AppendErrorKind.DUPLICATE_INVOCATION
    assert list(store.read(S1, after=size - 1))[-1].sequence == size
    assert sum(1 for _ in store.read(S1)) == size
    assert store.append(S1, [requested("more-0")], expected_sequence=size).unwrap()


def test_a_batch_of_10k_events_appends_in_one_transaction(store: EventStore) -> None:
    check_a_large_batch_is_one_transaction(store, 10_000)


@pytest.mark.slow
def test_a_batch_of_100k_events_appends_in_one_transaction(store: EventStore) -> None:
    check_a_large_batch_is_one_transaction(store, 100_000)
