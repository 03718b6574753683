"""DefaultToolRepository: cached persistent states, catch-up, uniqueness checks."""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from correx_tools import (
    DefaultToolRepository,
    EventReplayer,
    InMemoryEventStore,
    JsonlEventLog,
    Retention,
    SessionId,
    SQLiteEventStore,
    StoredEvent,
    StoreReadError,
    ToolInvocationStatus,
)

from .strategies import completed, requested, started

S1, S2 = SessionId("s1"), SessionId("s2")


class CountingStore:
    """Wraps a real store and records each read's ``after`` and how many events it gave."""

    def __init__(self, inner: SQLiteEventStore) -> None:
        self.inner = inner
        self.reads: list[tuple[int, int]] = []

    def __getattr__(self, name: str) -> object:
        return getattr(self.inner, name)

    def read(self, session_id: SessionId, *, after: int = 0) -> Iterator[StoredEvent]:
        events = list(self.inner.read(session_id, after=after))
        self.reads.append((after, len(events)))
        return iter(events)


def test_get_catches_up_reading_only_new_events(tmp_path: Path) -> None:
    store = CountingStore(SQLiteEventStore(tmp_path / "e.sqlite"))
    repository = DefaultToolRepository(EventReplayer(store))  # type: ignore[arg-type]
    store.append(S1, [requested("a"), started("a")], expected_sequence=0).unwrap()
    first = repository.get(S1).unwrap()
    store.append(S1, [completed("a"), requested("b")], expected_sequence=2).unwrap()
    second = repository.get(S1).unwrap()
    # The first get reads the state from the store's index and folds nothing after it;
    # the second folds only the two events appended since.
    assert store.reads == [(2, 0), (2, 2)]
    assert first.get("a").unwrap().status is ToolInvocationStatus.STARTED  # type: ignore[arg-type]
    assert second.get("a").unwrap().status is ToolInvocationStatus.COMPLETED  # type: ignore[arg-type]
    assert len(second) == 2
    assert repository.get(S1).unwrap() == second
    assert store.reads[-1] == (4, 0)


def test_a_first_get_from_a_store_without_an_index_folds_the_session(tmp_path: Path) -> None:
    log = JsonlEventLog(tmp_path / "e.jsonl")
    log.append(S1, [requested("a"), started("a"), completed("a")], expected_sequence=0).unwrap()
    state = DefaultToolRepository(EventReplayer(log)).get(S1).unwrap()
    assert state.get("a").unwrap().status is ToolInvocationStatus.COMPLETED  # type: ignore[arg-type]


def test_timeline_covers_the_whole_session() -> None:
    store = InMemoryEventStore()
    store.append(S1, [requested("a"), started("a"), completed("a")], expected_sequence=0).unwrap()
    timeline = DefaultToolRepository(EventReplayer(store)).timeline(S1).unwrap()
    assert len(timeline) == 3
    assert len(timeline.at(0)) == 0
    every = DefaultToolRepository(EventReplayer(store)).timeline(S1, Retention.every(2)).unwrap()
    assert every.at(3) == timeline.at(3)


def test_a_refused_event_is_a_replay_error_from_get() -> None:
    store = InMemoryEventStore()
    store.append(S1, [requested("a"), completed("a")], expected_sequence=0).unwrap()
    error = DefaultToolRepository(EventReplayer(store)).get(S1).failure()
    assert error.sequence == 2
    lenient = DefaultToolRepository(EventReplayer(store), strict=False).get(S1).unwrap()
    assert len(lenient) == 1


def test_check_unique_invocations_names_the_id_and_both_sessions(tmp_path: Path) -> None:
    store = InMemoryEventStore()
    store.append(S1, [requested("a")], expected_sequence=0).unwrap()
    store.append(S2, [requested("b")], expected_sequence=0).unwrap()
    repository = DefaultToolRepository(EventReplayer(store))
    assert repository.check_unique_invocations().unwrap() is None
    # Only a log written elsewhere can hold a duplicate: build one by hand.
    path = tmp_path / "dup.jsonl"
    from correx_tools.shell.stores.codec.encoding import encode_line  # noqa: PLC0415

    s1_events = list(store.read(S1))
    copy = StoredEvent(
        session_id=S2, sequence=1, recorded_at=s1_events[0].recorded_at, event=requested("a")
    )
    path.write_bytes(encode_line(s1_events[0]) + encode_line(copy))
    from correx_tools import JsonlEventLog  # noqa: PLC0415

    error = (
        DefaultToolRepository(EventReplayer(JsonlEventLog(path)))
        .check_unique_invocations()
        .failure()
    )
    assert (error.invocation_id, error.first_session, error.second_session) == ("a", S1, S2)
    assert "'a'" in error.message


def test_questions_over_an_event_that_cannot_be_read_answer_as_their_types_say(
    tmp_path: Path,
) -> None:
    path = tmp_path / "damaged.sqlite"
    session = SessionId("s")
    with SQLiteEventStore(path) as store:
        events = [requested("a"), started("a"), completed("a"), requested("b")]
        store.append(session, events, expected_sequence=0).unwrap()
    with sqlite3.connect(path) as connection:  # an editor, bypassing the store's own guard
        connection.execute("DROP TRIGGER events_changed")
        connection.execute("UPDATE events SET data = '{' WHERE sequence = 2")
    store = SQLiteEventStore(path, read_only=True)
    repository = DefaultToolRepository(EventReplayer(store))
    for answer in (repository.get(session), repository.at(session, 3)):
        assert "sequence 2: cannot read the event after sequence 1" in answer.failure().message
    with repository.view(session) as view:
        assert "sequence 2" in view.outlines(3).failure().message
        assert "sequence 2" in view.entries_through(3).failure().message
        with pytest.raises(StoreReadError, match="sequence 2"):
            view.refused(3)  # a plain answer: no "nothing was refused" when nothing was read
    store.close()
