"""A whole session streamed a page at a time gives what the fold gives, from any store.

`SessionView.outlines` and ``entries_through`` read the index's rows a page at
a time (the page made tiny here, so every session spans several); a store
without an index computes them in one pass. Both are held to a full fold at
every point of random sessions, in lenient and strict mode, and so are the
``stats`` computed from them (`session_stats`) and `ToolStatsBuilder`.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from returns.result import Success

from correx_tools import (
    DefaultToolRepository,
    EventReplayer,
    InMemoryEventStore,
    SQLiteEventStore,
    ToolProjector,
    fold_events,
)
from correx_tools.core.replay.analytics import durations, in_flight, tool_stats
from correx_tools.core.replay.stored_index import record_at
from correx_tools.shell.cli.commands.stats import session_stats
from correx_tools.shell.replay import pages
from correx_tools.shell.replay.questions import FromIndex
from correx_tools.shell.stores.port import EventStore

from .strategies import completed, requested, started, stored
from .test_questions import store_with, written


@pytest.fixture(autouse=True)
def small_pages(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(pages, "PAGE", 2)


def fields(call: Any) -> tuple[Any, ...]:
    """What an outline and a record share."""
    return (
        call.invocation_id,
        call.tool_name,
        call.tier,
        call.status,
        call.requested_at,
        call.started_at,
        call.completed_at,
        call.reason,
    )


def check_streams(store: EventStore) -> None:
    memory = InMemoryEventStore()
    for session in store.sessions():
        events = list(store.read(session))
        memory.import_events(events).unwrap()
        for strict in (False, True):
            repositories = [
                DefaultToolRepository(EventReplayer(where), strict=strict)
                for where in (store, memory)
            ]
            for k in range(len(events) + 1):
                folded = fold_events(ToolProjector(), events[:k], strict=strict)
                for repository in repositories:
                    with repository.view(session) as view:
                        outlines = view.outlines(k)
                        entries = view.entries_through(k)
                        if not isinstance(folded, Success):
                            assert outlines.failure() == folded.failure()
                            assert entries.failure() == folded.failure()
                            continue
                        state = folded.unwrap().state
                        records = list(state.records())
                        got = list(outlines.unwrap())
                        assert [fields(o) for o in got] == [fields(r) for r in records]
                        assert [record_at(e, k) for e in entries.unwrap()] == records
                        stats, flying = session_stats(iter(got))
                        assert stats == tool_stats(state)
                        assert flying == [
                            (r.invocation_id, r.tool_name, r.status, durations(r).queued)
                            for r in in_flight(state)
                        ]
                        assert view.indexed is (repository is repositories[0])


@settings(max_examples=25, deadline=None)
@given(written())
def test_streams_from_the_index_and_from_one_pass_agree_with_the_fold(
    batches: list[list[Any]],
) -> None:
    with store_with(batches, interval=3) as store:
        check_streams(store)


def test_an_index_found_damaged_part_way_is_left_for_the_fold(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    events = stored(
        [e for n in range(7) for e in (requested(f"c{n}"), started(f"c{n}"), completed(f"c{n}"))]
    )
    with SQLiteEventStore(path) as store:
        store.import_events(events).unwrap()
    with sqlite3.connect(path) as connection:  # the fifth call's row no longer holds together
        connection.execute("UPDATE invocations SET status = 1 WHERE invocation_id = 'c4'")
    state = fold_events(ToolProjector(), events).unwrap().state
    with SQLiteEventStore(path, read_only=True) as store:
        repository = DefaultToolRepository(EventReplayer(store))
        with repository.view(events[0].session_id) as view:
            got = list(view.outlines().unwrap())
            assert view.stale  # the stream went on by folding, after the calls it had given
        assert [fields(o) for o in got] == [fields(r) for r in state.records()]


class Counting:
    """A session index that notes how many rows each read of entries asks for."""

    def __init__(self, index: Any) -> None:
        self.index = index
        self.asked: list[int] = []

    def __getattr__(self, name: str) -> Any:
        return getattr(self.index, name)

    def entries_after(self, after: int, *, through: int, count: int) -> Any:
        self.asked.append(count)
        return self.index.entries_after(after, through=through, count=count)


def test_the_index_is_read_a_page_at_a_time(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    events = stored([e for n in range(9) for e in (requested(f"c{n}"), started(f"c{n}"))])
    with SQLiteEventStore(path) as store:
        store.import_events(events).unwrap()
        with store.session_index(events[0].session_id) as index:
            counting = Counting(index)
            questions = FromIndex(events[0].session_id, counting, strict=True)  # type: ignore[arg-type]
            stream = questions.entries_through(len(events), 0).unwrap()
            assert next(stream).invocation_id == "c0" and counting.asked == [2]
            assert len(list(stream)) == 8
    assert counting.asked == [2] * 5


def test_a_missing_row_is_noticed_before_the_stream_starts(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    events = stored(
        [e for n in range(5) for e in (requested(f"c{n}"), started(f"c{n}"), completed(f"c{n}"))]
    )
    with SQLiteEventStore(path) as store:
        store.import_events(events).unwrap()
    with sqlite3.connect(path) as connection:
        connection.execute("DELETE FROM invocations WHERE invocation_id = 'c2'")
    state = fold_events(ToolProjector(), events).unwrap().state
    with SQLiteEventStore(path, read_only=True) as store:
        repository = DefaultToolRepository(EventReplayer(store))
        with repository.view(events[0].session_id) as view:
            got = list(view.outlines().unwrap())
            assert view.stale and not view.indexed  # answered by folding, from the start
        assert [fields(o) for o in got] == [fields(r) for r in state.records()]
