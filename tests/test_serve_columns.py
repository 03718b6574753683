"""The server's columns answer exactly what the repository answers, at every sequence.

`correx-tools serve` draws its pictures (counts, per-tool percentiles, the calls
in flight, what changed, the timeline at any zoom) from compact columns it
reads once per session. Each is held here to the repository's own answer, or
to a plain count over the entries, on random sessions with refused events and
clocks that step back, read from a real SQLite index and from a plain log.
"""

from __future__ import annotations

import random
import tempfile
from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from correx_tools import (
    DefaultToolRepository,
    EventReplayer,
    InMemoryEventStore,
    SessionId,
    SQLiteEventStore,
    StoredEvent,
    ToolInvocationStatus,
    durations,
    in_flight,
    tool_stats,
)
from correx_tools.core.replay.order_stats import PrefixOrder, sort_order
from correx_tools.core.replay.stabbing import BlockMax
from correx_tools.shell.serve.columns.changes import changed
from correx_tools.shell.serve.columns.columns import SessionColumns
from correx_tools.shell.serve.columns.shelf import ColumnShelf
from correx_tools.shell.serve.columns.stats_at import (
    counts_at,
    in_flight_at,
    nonzero_at,
    open_at,
    tool_stats_at,
)
from correx_tools.shell.serve.columns.timeline import bars, bounds, buckets, visible_count

from .strategies import EPOCH, completed, failed, rejected, requested, started
from .test_questions import make

SESSION = SessionId("s")


def _event(kind: str, invocation: str, number: int) -> object:
    if kind == "req":  # three tools, so the per-tool answers have lanes to tell apart
        return requested(invocation, tool=("read_file", "shell", "web")[number % 3], n=number)
    return make(kind, invocation, number)


@st.composite
def session_events(draw: st.DrawFn, max_size: int = 35) -> list[StoredEvent]:
    """One session: mostly legal steps of a few invocations, some refused, clocks that step
    back now and then."""
    kinds = ["req", "req", "start", "start", "done", "fail", "reject", "opaque"]
    events, clock, used = [], 0, set()
    for sequence in range(1, draw(st.integers(0, max_size)) + 1):
        number = draw(st.integers(0, 7))
        clock += draw(st.integers(-2, 4))
        kind = draw(st.sampled_from(kinds))
        if kind == "req" and number in used:
            kind = "start"  # a store refuses an id requested twice: a second start is refused
        if kind == "req":
            used.add(number)
        events.append(
            StoredEvent(
                session_id=SESSION,
                sequence=sequence,
                recorded_at=EPOCH + timedelta(seconds=clock, microseconds=number),
                event=_event(kind, f"call-{number}", sequence),
            )
        )
    return events


def _columns(events: list[StoredEvent], *, indexed: bool, interval: int = 3,
             times: bool = True) -> tuple[SessionColumns, DefaultToolRepository]:  # fmt: skip
    if indexed:
        directory = tempfile.mkdtemp()
        store: object = SQLiteEventStore(Path(directory) / "s.sqlite", checkpoint_interval=interval)
    else:
        store = InMemoryEventStore()
    if events:
        store.import_events(events).unwrap()  # type: ignore[attr-defined]
    repository = DefaultToolRepository(EventReplayer(store), strict=False)  # type: ignore[arg-type]
    return ColumnShelf(repository, times=lambda _: times).columns(SESSION), repository


def check_every_sequence(columns: SessionColumns, repository: DefaultToolRepository) -> None:
    last = columns.last
    for k in range(last + 1):
        summary = repository.summary(SESSION, at=k).unwrap()
        expected = [summary.counts[status] for status in ToolInvocationStatus]
        assert counts_at(columns, k) == [*expected, summary.refused]
        assert nonzero_at(columns, k) == summary.exited_nonzero
        assert [columns.invocation_id(p) for p in open_at(columns, k)] == list(summary.in_flight)
        state = repository.at(SESSION, k).unwrap()
        assert tool_stats_at(columns, k) == list(tool_stats(state))
        assert in_flight_at(columns, k) == [
            (r.invocation_id, r.tool_name, r.status, durations(r).queued) for r in in_flight(state)
        ]
        for a in (0, k // 2, max(k - 1, 0)):
            expected_ids = [c.invocation_id for c in repository.diff(SESSION, a, k).unwrap()]
            assert [columns.invocation_id(p) for p in changed(columns, a, k)] == expected_ids


@settings(max_examples=40)
@given(events=session_events(), interval=st.integers(1, 4))
def test_counts_stats_in_flight_and_changes_are_the_repositorys(
    events: list[StoredEvent], interval: int
) -> None:
    columns, repository = _columns(events, indexed=True, interval=interval)
    assert columns.last == len(events)
    check_every_sequence(columns, repository)


@settings(max_examples=25)
@given(events=session_events())
def test_a_store_without_an_index_gives_the_same_columns(events: list[StoredEvent]) -> None:
    from_index, _ = _columns(events, indexed=True)
    from_log, repository = _columns(events, indexed=False)
    check_every_sequence(from_log, repository)
    assert _arrays(from_index) == _arrays(from_log)


def _arrays(columns: SessionColumns) -> tuple[object, ...]:
    names = ("req", "start", "end", "req_t", "start_t", "end_t", "status", "nonzero", "event_kind")
    return (
        *(list(getattr(columns, name)) for name in names),
        list(columns.event_position),
        [columns.tools[t] for t in columns.tool],
        [i for _, i in columns.ids()],
        [(r.sequence, r.invocation_id, r.kind, r.message) for r in columns.refused],
    )


@settings(max_examples=40)
@given(events=session_events(), cut=st.integers(0, 45))
def test_columns_caught_up_equal_columns_read_whole(events: list[StoredEvent], cut: int) -> None:
    cut = min(cut, len(events))
    directory = tempfile.mkdtemp()
    store = SQLiteEventStore(Path(directory) / "s.sqlite", checkpoint_interval=2)
    if cut:
        store.import_events(events[:cut]).unwrap()
    repository = DefaultToolRepository(EventReplayer(store), strict=False)
    shelf = ColumnShelf(repository)
    early = shelf.columns(SESSION) if cut else None
    if events[cut:]:
        store.import_events(events[cut:]).unwrap()
    caught_up = shelf.columns(SESSION, len(events)) if events else None
    whole = ColumnShelf(repository).columns(SESSION) if events else None
    if caught_up is not None and whole is not None:
        assert early is None or caught_up is not early or cut == len(events)
        assert _arrays(caught_up) == _arrays(whole)


@settings(max_examples=50)
@given(events=session_events(), window=st.tuples(st.integers(-5, 60), st.integers(0, 80)),
       count=st.integers(1, 12))  # fmt: skip
def test_the_timeline_is_a_plain_count_over_the_entries(
    events: list[StoredEvent], window: tuple[int, int], count: int
) -> None:
    columns, repository = _columns(events, indexed=True)
    entries = repository.entries(SESSION).unwrap().entries
    origin, end = bounds(columns)
    start, stop = origin + window[0] * 1_000_000, origin + (window[0] + window[1]) * 1_000_000
    if not entries:
        assert visible_count(columns, start, stop) == 0
        return
    span = max(stop - start, 1)
    expected: dict[tuple[int, int], list[int]] = {}
    in_view = set()
    for entry in entries:
        requested_at = _us(entry.requested_at)
        ended = None if entry.completed_at is None else _us(entry.completed_at)
        if requested_at <= stop and (ended is None or ended >= start):
            in_view.add(entry.invocation_id)
        if not start <= requested_at <= stop:
            continue
        bucket = min(count - 1, (requested_at - start) * count // span)
        cell = expected.setdefault((columns.tools.index(entry.tool_name), bucket), [0] * 5)
        cell[{"completed": 1, "failed": 2, "rejected": 3}.get(entry.status.value, 0)] += 1
        cell[4] += entry.status.value == "completed" and entry.receipt.exit_code != 0
    got = {(c[0], c[1]): c[2:] for c in buckets(columns, start, stop, count)}
    assert got == expected
    assert visible_count(columns, start, stop) == len(in_view)
    assert {columns.invocation_id(p) for p in bars(columns, start, stop)} == in_view
    # The span starts at the earliest time of any call: its request, or a start recorded
    # before it (a skewed clock), which the pages draw rather than cut off.
    assert origin == min(
        _us(t) for e in entries for t in (e.requested_at, e.started_at) if t is not None
    )
    assert end == max(
        _us(t) for e in entries for t in (e.requested_at, e.started_at, e.completed_at) if t
    )


def _us(moment: datetime) -> int:
    return (moment - datetime(1970, 1, 1, tzinfo=UTC)) // timedelta(microseconds=1)


@given(values=st.lists(st.integers(-50, 50), max_size=200), data=st.data())
def test_the_kth_smallest_of_a_prefix_is_a_sort(values: list[int], data: st.DataObject) -> None:
    order = PrefixOrder(values)
    assert list(sort_order(values)) == sorted(range(len(values)), key=lambda i: (values[i], i))
    for _ in range(min(len(values), 20)):
        m = data.draw(st.integers(1, len(values)))
        k = data.draw(st.integers(1, m))
        assert order.smallest(m, k) == sorted(values[:m])[k - 1]


@given(values=st.lists(st.integers(0, 30), max_size=300), m=st.integers(0, 310),
       threshold=st.integers(-1, 31))  # fmt: skip
def test_the_positions_past_a_threshold_are_a_filter(
    values: list[int], m: int, threshold: int
) -> None:
    expected = [p for p, v in enumerate(values[:m]) if v > threshold]
    assert BlockMax(len(values), values.__getitem__).above(m, threshold) == expected
    assert BlockMax(len(values), values.__getitem__).above(m, threshold, limit=2) == expected[:2]


def test_a_thousand_random_points_of_a_larger_session() -> None:
    rng = random.Random(7)
    events, clock, open_ids = [], 0, []
    for sequence in range(1, 2_001):
        clock += rng.randint(0, 3)
        if open_ids and rng.random() < 0.55:
            invocation = open_ids.pop(rng.randrange(len(open_ids)))
            event = rng.choice([started, completed, completed, failed, rejected])(invocation)
            if event.__class__.__name__ == "ToolExecutionStartedEvent":
                open_ids.append(invocation)
        else:
            invocation = f"call-{sequence}"
            open_ids.append(invocation)
            event = requested(invocation, tool=rng.choice(["read_file", "shell", "web", "grep"]))
        events.append(
            StoredEvent(
                session_id=SESSION,
                sequence=sequence,
                recorded_at=EPOCH + timedelta(milliseconds=clock),
                event=event,
            )
        )
    columns, repository = _columns(events, indexed=True, interval=100)
    for k in rng.sample(range(len(events) + 1), 40):
        state = repository.at(SESSION, k).unwrap()
        assert tool_stats_at(columns, k) == list(tool_stats(state))
        summary = repository.summary(SESSION, at=k).unwrap()
        assert [columns.invocation_id(p) for p in open_at(columns, k)] == list(summary.in_flight)


@settings(max_examples=25)
@given(events=session_events())
def test_a_session_that_records_no_time_is_laid_out_by_its_sequences(
    events: list[StoredEvent],
) -> None:
    columns, repository = _columns(events, indexed=True, times=False)
    # Each event's sequence stands where its time would be: no stored time is read.
    assert (list(columns.req_t), list(columns.start_t), list(columns.end_t)) == (
        list(columns.req),
        list(columns.start),
        list(columns.end),
    )
    for k in range(columns.last + 1):
        summary = repository.summary(SESSION, at=k).unwrap()
        counts = [summary.counts[status] for status in ToolInvocationStatus]
        assert counts_at(columns, k) == [*counts, summary.refused]
        rows = tool_stats_at(columns, k)
        assert [r._replace(queued=None, ran=None, took=None) for r in rows] == [
            r._replace(queued=None, ran=None, took=None)
            for r in tool_stats(repository.at(SESSION, k).unwrap())
        ]
        assert all(
            p is None for r in rows for p in (*r.queued.spread, *r.ran.spread, *r.took.spread)
        )  # no duration
        assert all(queued is None for *_, queued in in_flight_at(columns, k))
