"""The reducer follows the transition table of SPEC.md cell by cell."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest
from returns.result import Failure, Success

from correx_tools import (
    TRANSITIONS,
    DefaultToolReducer,
    InvocationId,
    SessionId,
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolInvocationStatus,
    ToolReceipt,
    ToolState,
    TransitionError,
    TransitionErrorKind,
)
from correx_tools.core.lifecycle._engine import rows
from correx_tools.core.lifecycle.record import ToolInvocationRecord

from .strategies import completed, failed, rejected, requested, started, stored

S = ToolInvocationStatus
K = TransitionErrorKind
reducer = DefaultToolReducer()

# The table of SPEC.md, written out independently of the implementation's table.
EXPECTED = {
    None: [
        S.REQUESTED,
        K.UNKNOWN_INVOCATION,
        K.UNKNOWN_INVOCATION,
        K.UNKNOWN_INVOCATION,
        K.UNKNOWN_INVOCATION,
    ],
    S.REQUESTED: [K.DUPLICATE_INVOCATION, S.STARTED, K.ILLEGAL_TRANSITION, S.FAILED, S.REJECTED],
    S.STARTED: [K.DUPLICATE_INVOCATION, K.ILLEGAL_TRANSITION, S.COMPLETED, S.FAILED, S.REJECTED],
    S.COMPLETED: [K.DUPLICATE_INVOCATION] + [K.ILLEGAL_TRANSITION] * 4,
    S.FAILED: [K.DUPLICATE_INVOCATION] + [K.ILLEGAL_TRANSITION] * 4,
    S.REJECTED: [K.DUPLICATE_INVOCATION] + [K.ILLEGAL_TRANSITION] * 4,
}
MAKERS = [requested, started, completed, failed, rejected]
COLUMNS = [
    ToolInvocationRequestedEvent,
    ToolExecutionStartedEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
]
# Events that bring a fresh invocation "a" to each row's status.
PREFIX = {
    None: [],
    S.REQUESTED: [requested("a")],
    S.STARTED: [requested("a"), started("a")],
    S.COMPLETED: [requested("a"), started("a"), completed("a")],
    S.FAILED: [requested("a"), failed("a")],
    S.REJECTED: [requested("a"), rejected("a")],
}


def state_after(events: list[object]) -> ToolState:
    state = ToolState.empty()
    for event in stored(events):
        state = reducer.reduce(state, event).unwrap()
    return state


def test_the_table_data_is_exactly_the_spec_table() -> None:
    cells = {
        (row, column): outcome
        for row, outcomes in EXPECTED.items()
        for column, outcome in zip(COLUMNS, outcomes, strict=True)
    }
    assert dict(TRANSITIONS) == cells


@pytest.mark.parametrize(
    "row", list(EXPECTED), ids=lambda row: "no-record" if row is None else row.name
)
@pytest.mark.parametrize("column", range(5), ids=[c.__name__ for c in COLUMNS])
def test_every_cell_of_the_table(row: S | None, column: int) -> None:
    prefix = PREFIX[row]
    state = state_after(prefix)
    event = stored([MAKERS[column]("a")], start=len(prefix) + 1)[0]
    result = reducer.reduce(state, event)
    expected = EXPECTED[row][column]
    if isinstance(expected, S):
        new_state = result.unwrap()
        record = new_state.get(InvocationId("a")).unwrap()
        assert record.status is expected
        assert (record.completed_at is not None) == expected.is_terminal
        assert len(new_state) == 1
    else:
        error = result.failure()
        assert isinstance(error, TransitionError)
        assert error.kind is expected
        assert error.sequence == event.sequence
        assert error.invocation_id == "a"
        assert error.status is row
        assert error.event_type == COLUMNS[column].__name__
        assert f"sequence {event.sequence}" in error.message
        assert expected.value in error.message


def test_a_refused_step_returns_the_state_untouched() -> None:
    state = state_after([requested("a"), completed_via_start := started("a")])
    assert completed_via_start.invocation_id == "a"
    before = list(state.records())
    result = reducer.reduce(state, stored([started("a")], start=3)[0])
    assert isinstance(result, Failure)
    assert list(state.records()) == before


def test_record_fields_follow_the_lifecycle() -> None:
    events = stored(
        [requested("a", path="x"), started("a"), completed("a", output={"n": [1]})],
        times=[10, 20, 30],
    )
    state = ToolState.empty()
    records = []
    for event in events:
        state = reducer.reduce(state, event).unwrap()
        records.append(state.get(InvocationId("a")).unwrap())
    req, run, done = records
    assert req.status is S.REQUESTED and req.started_at is None and req.completed_at is None
    assert req.requested_at == events[0].recorded_at
    assert req.request.arguments["path"] == "x"
    assert (
        run.status is S.STARTED
        and run.started_at == events[1].recorded_at
        and run.completed_at is None
    )
    assert done.status is S.COMPLETED and done.completed_at == events[2].recorded_at
    assert done.started_at == events[1].recorded_at
    assert done.receipt == ToolReceipt(output={"n": [1]}, exit_code=0)
    assert done.reason is None


def test_failed_and_rejected_keep_their_reason() -> None:
    state = state_after(
        [
            requested("a"),
            failed("a", reason="disk full", recoverable=False),
            requested("b"),
            rejected("b", "policy"),
        ]
    )
    a = state.get(InvocationId("a")).unwrap()
    b = state.get(InvocationId("b")).unwrap()
    assert (a.status, a.reason, a.recoverable, a.receipt) == (S.FAILED, "disk full", False, None)
    assert (b.status, b.reason) == (S.REJECTED, "policy")
    assert [r.invocation_id for r in state.invocations] == ["a", "b"]


@pytest.mark.parametrize("terminal", [completed, failed, rejected])
def test_a_terminal_event_before_the_request_is_a_time_regression(terminal: object) -> None:
    # Started is not time-checked; the terminal event is, against the request.
    events = stored([requested("a"), started("a"), terminal("a")], times=[100, 100, 99])  # type: ignore[operator]
    state = ToolState.empty()
    for event in events[:2]:
        state = reducer.reduce(state, event).unwrap()
    error = reducer.reduce(state, events[2]).failure()
    assert error.kind is K.TIME_REGRESSION
    assert "before the request" in error.message


def test_a_terminal_event_at_the_same_instant_is_fine() -> None:
    events = stored([requested("a"), failed("a")], times=[5, 5])
    state = reducer.reduce(ToolState.empty(), events[0]).unwrap()
    assert isinstance(reducer.reduce(state, events[1]), Success)


def test_events_that_are_not_tool_events_leave_the_state_unchanged() -> None:
    state = state_after([requested("a")])
    other = StoredEvent(
        session_id=SessionId("s"),
        sequence=2,
        recorded_at=datetime(2026, 1, 2, tzinfo=UTC),
        event={"kind": "user.message"},
    )
    assert reducer.reduce(state, other).unwrap() is state


def test_get_is_nothing_for_unknown_ids_and_len_counts_records() -> None:
    state = state_after([requested("a"), requested("b"), started("a")])
    assert len(state) == 2
    assert not state.get(InvocationId("zzz")).map(lambda _: True).value_or(False)
    assert InvocationId("b") in state


def test_the_row_positions_name_the_records_fields_in_order() -> None:
    positions = {
        "invocation_id": rows.ID,
        "tool_name": rows.TOOL,
        "tier": rows.TIER,
        "request": rows.REQUEST,
        "status": rows.STATUS,
        "receipt": rows.RECEIPT,
        "requested_at": rows.REQUESTED_AT,
        "completed_at": rows.COMPLETED_AT,
        "started_at": rows.STARTED_AT,
        "reason": rows.REASON,
        "recoverable": rows.RECOVERABLE,
    }
    assert positions == {name: n for n, name in enumerate(ToolInvocationRecord._fields)}
    assert len(positions) == rows.FIELDS
