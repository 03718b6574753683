"""The reducer against a deliberately naive model: a dict of statuses."""

from __future__ import annotations

from datetime import timedelta

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule

from correx_tools import (
    DefaultToolReducer,
    InvocationId,
    OpaqueEvent,
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

from .strategies import EPOCH, completed, failed, rejected, requested, started, tool_events

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

    def ids_in(self, statuses: set[S]) -> list[str]:
        return sorted(key for key, (status, _) in self.model.items() if status in statuses)

    @rule(event=tool_events(), step=st.integers(-3, 5))
    def apply(self, event: object, step: int) -> None:
        # A negative step moves the clock back, so time regressions happen.
        self.clock = max(0, self.clock + step)
        self.check(event, self.clock)

    @rule(data=st.data())
    def move_an_open_invocation_on(self, data: st.DataObject) -> None:
        # Random events rarely finish an invocation; this rule gets many to the end.
        open_ids = self.ids_in({S.REQUESTED, S.STARTED})
        if not open_ids:
            self.clock += 1
            self.check(requested(f"fresh-{self.sequence}"), self.clock)
            return
        invocation = data.draw(st.sampled_from(open_ids))
        make = data.draw(st.sampled_from([started, completed, failed, rejected]))
        self.clock += data.draw(st.integers(0, 2))
        self.check(make(invocation), self.clock)

    @precondition(lambda self: bool(self.ids_in(TERMINAL)))
    @rule(data=st.data())
    def an_event_after_a_terminal_status(self, data: st.DataObject) -> None:
        invocation = data.draw(st.sampled_from(self.ids_in(TERMINAL)))
        make = data.draw(st.sampled_from([requested, started, completed, failed, rejected]))
        self.check(make(invocation), self.clock)

    @precondition(lambda self: bool(self.ids_in({S.REQUESTED, S.STARTED})))
    @rule(data=st.data(), back=st.integers(1, 100_000))
    def a_terminal_event_timestamped_before_its_request(
        self, data: st.DataObject, back: int
    ) -> None:
        invocation = data.draw(st.sampled_from(self.ids_in({S.REQUESTED, S.STARTED})))
        make = data.draw(st.sampled_from([completed, failed, rejected]))
        # The event is recorded before the request: one microsecond to a day earlier.
        requested_at = self.model[invocation][1]
        self.check(make(invocation), requested_at - back)

    @rule(data=st.data())
    def an_event_for_an_unknown_id(self, data: st.DataObject) -> None:
        make = data.draw(st.sampled_from([started, completed, failed, rejected]))
        self.check(make(f"never-requested-{data.draw(st.integers(0, 5))}"), self.clock)

    @rule(data=st.data())
    def a_foreign_event(self, data: st.DataObject) -> None:
        foreign = data.draw(
            st.sampled_from(
                [
                    OpaqueEvent(type="chat.message", version=1, data={"text": "hi"}),
                    OpaqueEvent(type="tool.invocation.requested.v9", version=9, data={}),
                    {"invocation_id": "inv-0"},
                    InvocationId("inv-0"),
                    None,
                ]
            )
        )
        self.check(foreign, self.clock)

    def check(self, event: object, at: int) -> None:
        """Apply ``event`` at ``at`` microseconds; the reducer must do what the model says."""
        self.sequence += 1
        stored = StoredEvent(
            session_id=SessionId("s"),
            sequence=self.sequence,
            recorded_at=EPOCH + timedelta(microseconds=at),
            event=event,
        )
        expected = model_step(self.model, event, at)
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
            self.model[invocation] = (S.REQUESTED, at)
            self.order.append(invocation)
        else:
            self.model[invocation] = (expected, self.model[invocation][1])
        # The record carries what its latest event said.
        record = self.state.get(invocation).unwrap()
        assert record.status is expected
        assert record.receipt == getattr(event, "receipt", record.receipt)
        if isinstance(event, ToolExecutionFailedEvent | ToolExecutionRejectedEvent):
            assert record.reason == event.reason
            assert record.completed_at == stored.recorded_at
        if isinstance(event, ToolExecutionFailedEvent):
            assert record.recoverable is event.recoverable

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


# The profile's examples (100 in CI) of 50 steps in the default run; three times as many
# (300 in CI) with the slow tests, and ten times that nightly.
ReducerMachine.TestCase.settings = settings(
    ReducerMachine.TestCase.settings, stateful_step_count=50
)
TestReducerAgainstModel = ReducerMachine.TestCase


@pytest.mark.slow
class TestReducerAgainstModelLonger(ReducerMachine.TestCase):  # type: ignore[misc]
    """The same machine, three times as many examples."""

    settings = settings(
        ReducerMachine.TestCase.settings,
        max_examples=3 * settings.default.max_examples,
        stateful_step_count=50,
    )
