"""Lifecycle analytics, held to a model computed straight from the events.

The model never looks at the reducer's records: it walks the session's
events itself, keeping for each invocation the times of its legal steps.
"""

from __future__ import annotations

from datetime import datetime, timedelta
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from correx_tools import (
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolProjector,
    fold_events,
)
from correx_tools.core.replay.analytics import (
    Percentiles,
    durations,
    in_flight,
    percentiles,
    stuck,
    tool_stats,
)

from .strategies import EPOCH, completed, requested, sessions, started, stored


def model(events: list[StoredEvent]) -> dict[str, dict[str, Any]]:
    """Each invocation's tool, times and ending, from the legal steps of ``events``."""
    seen: dict[str, dict[str, Any]] = {}
    for stored_event in events:
        event, at = stored_event.event, stored_event.recorded_at
        if isinstance(event, ToolInvocationRequestedEvent):
            if event.invocation_id not in seen:
                seen[event.invocation_id] = {"tool": event.tool_name, "requested": at}
            continue
        entry = seen.get(getattr(event, "invocation_id", None) or "")
        if entry is None or "ended" in entry:
            continue
        if isinstance(event, ToolExecutionStartedEvent) and "started" not in entry:
            entry["started"] = at
        elif isinstance(event, ToolExecutionRejectedEvent | ToolExecutionFailedEvent) or (
            isinstance(event, ToolExecutionCompletedEvent) and "started" in entry
        ):  # only completing needs a start; failing or rejecting may come before it
            entry["ended"], entry["how"] = at, type(event).__name__
    return seen


@given(sessions(max_size=60))
def test_durations_and_stats_agree_with_the_events(events: list[StoredEvent]) -> None:
    state = fold_events(ToolProjector(), events, strict=False).unwrap().state
    expected = model(events)
    assert {r.invocation_id for r in state.records()} == set(expected)
    for record in state.records():
        entry = expected[record.invocation_id]
        measured = durations(record)
        started_at, ended_at = entry.get("started"), entry.get("ended")
        assert measured.queued == (None if started_at is None else started_at - entry["requested"])
        assert measured.total == (None if ended_at is None else ended_at - entry["requested"])
        if measured.queued is not None and measured.ran is not None:
            assert measured.queued + measured.ran == measured.total
    flying = in_flight(state)
    assert {r.invocation_id for r in flying} == {i for i, e in expected.items() if "ended" not in e}
    assert [r.requested_at for r in flying] == sorted(r.requested_at for r in flying)
    stats = tool_stats(state)
    assert [s.tool_name for s in stats] == sorted({e["tool"] for e in expected.values()})
    for row in stats:
        mine = [e for e in expected.values() if e["tool"] == row.tool_name]
        assert row.calls == len(mine)
        assert row.completed + row.failed + row.rejected + row.in_flight == row.calls
        assert row.rejected == sum(e.get("how") == "ToolExecutionRejectedEvent" for e in mine)
        for spread in (row.queued, row.ran):
            if spread.max is not None:
                assert spread.p50 is not None and spread.p95 is not None
                assert spread.p50 <= spread.p95 <= spread.max


@given(sessions(max_size=40), st.integers(0, 200), st.integers(0, 100))
def test_stuck_is_what_has_waited_longer_than_asked(
    events: list[StoredEvent], now_seconds: int, older: int
) -> None:
    state = fold_events(ToolProjector(), events, strict=False).unwrap().state
    now: datetime = EPOCH + timedelta(seconds=now_seconds)
    found = stuck(state, now, timedelta(seconds=older))
    assert set(found) <= set(in_flight(state))
    for record in in_flight(state):
        last = record.started_at or record.requested_at
        assert (record in found) == (now - last > timedelta(seconds=older))
    # Asking for a longer wait never finds more.
    assert set(stuck(state, now, timedelta(seconds=older + 10))) <= set(found)


@given(st.lists(st.integers(0, 10_000), min_size=1, max_size=200))
def test_percentiles_are_nearest_rank_and_measured_values(milliseconds: list[int]) -> None:
    values = [timedelta(milliseconds=m) for m in milliseconds]
    spread = percentiles(values)
    ordered = sorted(values)
    assert spread.max == ordered[-1]
    for value, percent in ((spread.p50, 50), (spread.p95, 95)):
        assert value in values
        at_most = sum(v <= value for v in ordered)  # type: ignore[operator]
        assert at_most >= percent * len(ordered) / 100
        assert sum(v < value for v in ordered) < percent * len(ordered) / 100  # type: ignore[operator]


def test_a_worked_example() -> None:
    events = stored(
        [
            requested("a", tool="read_file"),
            started("a"),
            completed("a"),
            requested("b", tool="shell"),
        ],
        times=[0, 2, 7, 8],
    )
    state = fold_events(ToolProjector(), events).unwrap().state
    a = state.find("a")
    assert a is not None
    assert durations(a) == (timedelta(seconds=2), timedelta(seconds=5), timedelta(seconds=7))
    (shell,) = [row for row in tool_stats(state) if row.tool_name == "shell"]
    assert shell.in_flight == 1 and shell.queued.max is None
    assert [
        r.invocation_id for r in stuck(state, EPOCH + timedelta(seconds=20), timedelta(seconds=10))
    ] == ["b"]
    assert percentiles([]) == Percentiles(None, None, None)
