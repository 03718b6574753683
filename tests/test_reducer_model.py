"""The reducer against a deliberately naive model: a dict of statuses."""

from __future__ import annotations

from datetime import timedelta

from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, rule

from correx_tools import (
    DefaultToolReducer,
    SessionId,
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolInvocationStatus,
    ToolState,
    TransitionErrorKind,
)

from .strategies import EPOCH, tool_events

S = ToolInvocationStatus
RANK = {S.REQUESTED: 0, S.STARTED: 1, S.COMPLETED: 2, S.FAILED: 2, S.REJECTED: 2}
TERMINAL = {S.COMPLETED, S.FAILED, S.REJECTED}


def model_step(
    model: dict[str, tuple[S, int]], event: object, at: int
) -> S | TransitionErrorKind | None:
    """What the spec says happens, written as plain if/else (``None``: not a tool event)."""
    if isinstance(event, ToolInvocationRequestedEvent):
        return (
            TransitionErrorKind.DUPLICATE_INVOCATION
            if event.invocation_id in model
            else S.REQUESTED
        )
    if not isinstance(
        event,
        ToolExecutionStartedEvent
        | ToolExecutionCompletedEvent
        | ToolExecutionFailedEvent
        | ToolExecutionRejectedEvent,
    ):
        return None
    if event.invocation_id not in model:
        return TransitionErrorKind.UNKNOWN_INVOCATION
    status, requested_at = model[event.invocation_id]
    if status in TERMINAL:
        return TransitionErrorKind.ILLEGAL_TRANSITION
    if isinstance(event, ToolExecutionStartedEvent):
        return S.STARTED if status is S.REQUESTED else TransitionErrorKind.ILLEGAL_TRANSITION
    if isinstance(event, ToolExecutionCompletedEvent) and status is not S.STARTED:
        return TransitionErrorKind.ILLEGAL_TRANSITION
    if at < requested_at:
        return TransitionErrorKind.TIME_REGRESSION
    if isinstance(event, ToolExecutionCompletedEvent):
        return S.COMPLETED
    return S.FAILED if isinstance(event, ToolExecutionFailedEvent) else S.REJECTED


class ReducerMachine(RuleBasedStateMachine):
    """Random legal and illegal events; the reducer and the model must agree on each."""

    def __init__(self) -> None:
        super().__init__()
        self.reducer = DefaultToolReducer()
        self.state = ToolState.empty()
        self.model: dict[str, tuple[S, int]] = {}
        self.order: list[str] = []
        self.sequence = 0
        self.clock = 0
        self.previous_records: dict[str, object] = {}

    @rule(event=tool_events(), step=st.integers(-3, 5))
    def apply(self, event: object, step: int) -> None:
        # A negative step moves the clock back, so time regressions happen.
        self.clock = max(0, self.clock + step)
        self.sequence += 1
        stored = StoredEvent(
            session_id=SessionId("s"),
            sequence=self.sequence,
            recorded_at=EPOCH + timedelta(seconds=self.clock),
            event=event,
        )
        expected = model_step(self.model, event, self.clock)
        before = self.state
        before_records = list(before.records())
        result = self.reducer.reduce(before, stored)
        if expected is None:
            assert result.unwrap() is before
            return
        if isinstance(expected, TransitionErrorKind):
            error = result.failure()
            assert error.kind is expected, error.message
            assert error.sequence == self.sequence
            # A refused event leaves the state identical.
            assert list(before.records()) == before_records
            return
        self.state = result.unwrap()
        invocation = event.invocation_id  # type: ignore[attr-defined]
        if expected is S.REQUESTED:
            self.model[invocation] = (S.REQUESTED, self.clock)
            self.order.append(invocation)
        else:
            self.model[invocation] = (expected, self.model[invocation][1])

    @invariant()
    def statuses_match_the_model(self) -> None:
        assert {r.invocation_id: r.status for r in self.state.records()} == {
            key: value[0] for key, value in self.model.items()
        }

    @invariant()
    def records_are_in_request_order_and_never_removed(self) -> None:
        assert [r.invocation_id for r in self.state.invocations] == self.order
        assert len(self.state) == len(self.order)

    @invariant()
    def status_only_moves_forward(self) -> None:
        for record in self.state.records():
            previous = self.previous_records.get(record.invocation_id)
            if previous is not None:
                assert RANK[record.status] >= RANK[previous.status]  # type: ignore[attr-defined]
                if previous.status in TERMINAL:  # type: ignore[attr-defined]
                    assert record == previous
            self.previous_records[record.invocation_id] = record

    @invariant()
    def completed_at_is_set_exactly_when_terminal(self) -> None:
        for record in self.state.records():
            assert (record.completed_at is not None) == record.status.is_terminal
            assert (record.receipt is not None) == (record.status is S.COMPLETED)
            assert (record.reason is not None) == (record.status in {S.FAILED, S.REJECTED})
            if record.completed_at is not None:
                assert record.completed_at >= record.requested_at


ReducerMachine.TestCase.settings = settings(
    ReducerMachine.TestCase.settings, stateful_step_count=50
)
TestReducerAgainstModel = ReducerMachine.TestCase
