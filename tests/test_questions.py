"""The stored time-travel index answers exactly what a full fold's ``Timeline`` answers.

Random sessions (legal and refused events, clocks that step back, events for
ids another session requested, opaque events) are written to a real store in
random batches by two writers, with a checkpoint every 1 to 5 events; then
every question is asked at every point, of the repository (answering from the
index) and of a full fold, and the answers compared.
"""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any

import psycopg
import pytest
from hypothesis import event, given, settings
from hypothesis import strategies as st
from returns.result import Success

from correx_tools import (
    DefaultToolRepository,
    EventReplayer,
    InMemoryEventStore,
    InvocationId,
    OpaqueEvent,
    PostgresEventStore,
    Retention,
    SessionId,
    SQLiteEventStore,
    StoredEvent,
    ToolInvocationRequestedEvent,
    ToolProjector,
    fold_events,
)
from correx_tools.core.replay.stored_index import history_of
from correx_tools.core.replay.summary import summarize, summarize_changes
from correx_tools.core.tools.short_ids import resolve_name, short_invocation_id, starting_in
from correx_tools.shell.replay.questions import FromIndex
from correx_tools.shell.stores.port import EventStore

from .strategies import EPOCH, completed, failed, rejected, requested, started

SESSIONS = [SessionId("alpha"), SessionId("beta")]


KINDS = ["req", "req", "start", "done", "fail", "reject", "opaque"]


def make(kind: str, invocation: str, number: int) -> object:
    """One event of ``kind`` for ``invocation``."""
    match kind:
        case "req":
            return requested(invocation, tool="read_file", path=f"f{number}")
        case "start":
            return started(invocation)
        case "done":  # a third of them exit non-zero
            return completed(invocation, output={"n": number}, exit_code=(0, 0, 2)[number % 3])
        case "fail":
            return failed(invocation, recoverable=number % 2 == 0)
        case "reject":
            return rejected(invocation)
    return OpaqueEvent(type="note", version=1, data={"n": number})


@st.composite
def written(draw: st.DrawFn) -> list[list[StoredEvent]]:
    """Batches of events for the two sessions, in the order they are written."""
    used: set[str] = set()
    last = dict.fromkeys(SESSIONS, 0)
    clock = dict.fromkeys(SESSIONS, 0)
    batches = []
    for _ in range(draw(st.integers(1, 6))):
        session = draw(st.sampled_from(SESSIONS))
        batch = []
        for _ in range(draw(st.integers(1, 8))):
            number = draw(st.integers(0, 5))
            # Mostly this session's own ids; sometimes the other's (unknown here).
            owner = session if draw(st.integers(0, 4)) else draw(st.sampled_from(SESSIONS))
            invocation = f"{owner}-{number}"
            kind = draw(st.sampled_from(KINDS))
            if kind == "req" and (owner != session or invocation in used):
                kind = "start"
            event = make(kind, invocation, number)
            if isinstance(event, ToolInvocationRequestedEvent):
                used.add(invocation)
            clock[session] += draw(st.integers(-2, 3))
            last[session] += 1
            batch.append(
                StoredEvent(
                    session_id=session,
                    sequence=last[session],
                    recorded_at=EPOCH + timedelta(seconds=clock[session]),
                    event=event,
                )
            )
        batches.append(batch)
    return batches


@contextmanager
def store_with(
    batches: list[list[StoredEvent]], interval: int, dsn: str | None = None
) -> Iterator[EventStore]:
    """A SQLite file (or, with ``dsn``, a new PostgreSQL schema) holding ``batches``,
    written alternately by two store objects."""
    with tempfile.TemporaryDirectory() as directory:
        if dsn is None:
            path = Path(directory) / "events.sqlite"
            writers: list[Any] = [
                SQLiteEventStore(path, checkpoint_interval=interval),
                SQLiteEventStore(path),
            ]
        else:
            schema = f"q_{uuid.uuid4().hex[:12]}"
            writers = [
                PostgresEventStore(dsn, schema=schema, checkpoint_interval=interval),
                PostgresEventStore(dsn, schema=schema),
            ]
        for number, batch in enumerate(batches):
            writers[number % 2].import_events(batch).unwrap()
        writers[1].close()
        try:
            yield writers[0]
        finally:
            writers[0].close()
            if dsn is not None:
                with psycopg.connect(dsn, autocommit=True) as connection:
                    connection.execute(f'DROP SCHEMA "{schema}" CASCADE')


def check_every_answer(store: EventStore) -> None:
    lenient = DefaultToolRepository(EventReplayer(store), strict=False)
    strict = DefaultToolRepository(EventReplayer(store), strict=True)
    for session in store.sessions():
        events = list(store.read(session))
        last = len(events)
        with store.session_index(session) as index:  # type: ignore[attr-defined]
            assert index is not None  # the answers below come from the index
        replay = fold_events(
            ToolProjector(), events, strict=False, retention=Retention.all()
        ).unwrap()
        event(f"refused events: {min(len(replay.quarantined), 3)}")
        timeline = replay.timeline
        assert timeline is not None
        for k in range(last + 1):
            assert lenient.at(session, k).unwrap() == timeline.at(k)
            prefix = fold_events(ToolProjector(), events[:k], strict=False).unwrap()
            assert lenient.summary(session, at=k).unwrap() == summarize(
                session, k, prefix.state, len(prefix.quarantined)
            )
            assert lenient.latest(session, 2, at=k).unwrap() == tuple(prefix.state.records())[-2:]
            assert lenient.refused(session, at=k) == prefix.quarantined
            strictly = fold_events(ToolProjector(), events[:k], strict=True)
            asked = strict.at(session, k)
            if isinstance(strictly, Success):
                assert asked.unwrap() == strictly.unwrap().state
            else:
                assert asked.failure() == strictly.failure()
            for a in range(0, k + 1, 3):
                changes = timeline.diff(a, k)
                assert lenient.diff(session, a, k).unwrap() == changes
                for limit in (0, 1, 2):
                    assert lenient.diff(session, a, k, limit).unwrap() == changes[:limit]
                offset = a % 4  # a page of the server's: from the open calls into the new
                assert lenient.diff(session, a, k, 2, offset).unwrap() == changes[offset:][:2]
                assert lenient.diff_summary(session, a, k).unwrap() == (
                    summarize_changes(a, k, changes)
                )
        for invocation in {getattr(e.event, "invocation_id", "none") for e in events}:
            assert lenient.history(session, InvocationId(invocation)).unwrap() == (
                timeline.history(InvocationId(invocation))
            )
        assert lenient.get(session).unwrap() == replay.state
        memory = InMemoryEventStore()
        memory.import_events(events).unwrap()
        folding = DefaultToolRepository(EventReplayer(memory), strict=False)
        ids = [r.invocation_id for r in replay.state.records()]
        check_names(lenient, session, ids)
        check_names(folding, session, ids)
        for a, b in ((0, last), (last // 2, last)):
            changes = timeline.diff(a, b)
            assert folding.diff_summary(session, a, b).unwrap() == summarize_changes(a, b, changes)
            assert folding.diff(session, a, b, 1).unwrap() == changes[:1]
            assert folding.diff(session, a, b, 2, 1).unwrap() == changes[1:3]
        check_entries(store, session, events, timeline, replay.quarantined)


def check_names(
    repository: DefaultToolRepository, session: SessionId, ids: list[InvocationId]
) -> None:
    """Every id, the part after the session's prefix and every prefix of them names what
    the rule names over a plain sorted list of the session's ids."""
    model = starting_in(sorted(ids))
    for invocation in ids:
        for name in {invocation, short_invocation_id(session, invocation)}:
            for cut in range(len(name) + 1):
                expected = resolve_name(name[:cut], model, kind="invocation", session_id=session)
                assert repository.resolve_invocation(session, name[:cut]) == expected


def check_entries(
    store: EventStore,
    session: SessionId,
    events: list[StoredEvent],
    timeline: Any,
    quarantined: Any,
) -> None:
    """The index's entries, the entries one pass over the events computes, and the fold
    agree: same invocations in request order, same history, same refusals; and so do the
    outlines at every point (read from the index without the payloads)."""
    indexed = DefaultToolRepository(EventReplayer(store), strict=False)
    from_index = indexed.entries(session)
    memory = InMemoryEventStore()
    memory.import_events(events).unwrap()
    folding = DefaultToolRepository(EventReplayer(memory), strict=False)
    folded = folding.entries(session)
    assert from_index.unwrap() == folded.unwrap()
    with indexed.view(session) as index_view, folding.view(session) as fold_view:
        for k in range(len(events) + 1):
            outlines = list(index_view.outlines(k).unwrap())
            assert outlines == list(fold_view.outlines(k).unwrap())
            assert [o.invocation_id for o in outlines] == [
                r.invocation_id for r in timeline.at(k).records()
            ]
        # Entries asked by id, together: every id in reverse request order, one twice,
        # and one never requested.
        ids = [e.invocation_id for e in reversed(folded.unwrap()[1])]
        asked = [*ids, *ids[:1], InvocationId("never-requested")]
        assert index_view.entries_by_id(asked) == fold_view.entries_by_id(asked)
        assert index_view.indexed and not index_view.stale
    last, entries, refused = folded.unwrap()
    assert last == len(events) and refused == quarantined
    assert [e.invocation_id for e in entries] == [
        r.invocation_id for r in timeline.at(len(events)).records()
    ]
    for entry in entries:
        assert history_of(entry) == timeline.history(entry.invocation_id)
    for strict in (
        DefaultToolRepository(EventReplayer(store), strict=True).entries(session),
        DefaultToolRepository(EventReplayer(memory), strict=True).entries(session),
    ):
        if quarantined:
            assert strict.failure().sequence == quarantined[0][0].sequence
        else:
            assert strict.unwrap() == folded.unwrap()


# The quick pass gives the SQLite comparison fifty sessions (its longest test); the slow
# pass gives it four hundred of its own.
@settings(max_examples=50)
@given(batches=written(), interval=st.integers(1, 5))
def test_every_answer_from_a_sqlite_index_is_the_folds(
    batches: list[list[StoredEvent]], interval: int
) -> None:
    with store_with(batches, interval) as store:
        check_every_answer(store)


@pytest.mark.slow
@settings(max_examples=400)
@given(batches=written(), interval=st.integers(1, 5))
def test_every_answer_from_a_sqlite_index_is_the_folds_on_many_more_sessions(
    batches: list[list[StoredEvent]], interval: int
) -> None:
    with store_with(batches, interval) as store:
        check_every_answer(store)


# The SQL both databases run is one engine (`shell/stores/sql/`), held to the fold on SQLite
# above with the full budget; here each example costs a schema on a server, so fewer: five in
# the quick pass, fifty in the slow one.
@settings(max_examples=5)
@given(batches=written(), interval=st.integers(1, 5))
def test_every_answer_from_a_postgres_index_is_the_folds(
    postgres_dsn: str, batches: list[list[StoredEvent]], interval: int
) -> None:
    with store_with(batches, interval, postgres_dsn) as store:
        check_every_answer(store)


@pytest.mark.slow
@settings(max_examples=50)
@given(batches=written(), interval=st.integers(1, 5))
def test_every_answer_from_a_postgres_index_is_the_folds_on_more_sessions(
    postgres_dsn: str, batches: list[list[StoredEvent]], interval: int
) -> None:
    with store_with(batches, interval, postgres_dsn) as store:
        check_every_answer(store)


def test_the_repository_answers_from_the_index_when_there_is_one(tmp_path: Path) -> None:
    store = SQLiteEventStore(tmp_path / "e.sqlite")
    store.append(SESSIONS[0], [requested("a"), started("a")], expected_sequence=0).unwrap()
    repository = DefaultToolRepository(EventReplayer(store))
    with repository._questions(SESSIONS[0]) as questions:
        assert isinstance(questions, FromIndex)


def test_a_sequence_outside_the_session_is_an_index_error(tmp_path: Path) -> None:
    store = SQLiteEventStore(tmp_path / "e.sqlite")
    store.append(SESSIONS[0], [requested("a")], expected_sequence=0).unwrap()
    repository = DefaultToolRepository(EventReplayer(store))
    with pytest.raises(IndexError, match=r"outside the session's range 0\.\.1"):
        repository.at(SESSIONS[0], 2)
    with pytest.raises(ValueError, match="diff goes forward"):
        repository.diff(SESSIONS[0], 1, 0)
