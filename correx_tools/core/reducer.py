"""The tool reducer: one stored event applied to a ``ToolState``."""

from __future__ import annotations

from datetime import datetime
from typing import Protocol, assert_never, cast, final

from returns.result import Failure, Result, Success

from .events import (
    StoredEvent,
    ToolEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
)
from .record import ToolInvocationRecord, make_record
from .state import ToolState
from .status import ToolInvocationStatus
from .transitions import TRANSITIONS, TransitionError, TransitionErrorKind

_TOOL_EVENT_CLASSES = frozenset(
    {
        ToolInvocationRequestedEvent,
        ToolExecutionStartedEvent,
        ToolExecutionCompletedEvent,
        ToolExecutionFailedEvent,
        ToolExecutionRejectedEvent,
    }
)


class ToolReducer(Protocol):
    """Applies one stored event to a state, or says why it cannot."""

    def reduce(
        self, state: ToolState, stored_event: StoredEvent
    ) -> Result[ToolState, TransitionError]:
        """The state after ``stored_event``; a ``Failure`` leaves ``state`` as it was."""
        ...


@final
class DefaultToolReducer:
    """The reducer of the lifecycle table in :mod:`correx_tools.core.transitions`.

    Pure and stateless: the same state and event always give the same result,
    and a refused event never changes the state it was given. Events that are
    not tool events leave the state unchanged.
    """

    __slots__ = ()

    def reduce(
        self, state: ToolState, stored_event: StoredEvent
    ) -> Result[ToolState, TransitionError]:
        """Apply ``stored_event`` to ``state`` following the transition table."""
        outcome = self.step(state, stored_event)
        if type(outcome) is TransitionError:
            return Failure(outcome)
        return Success(outcome)

    def step(self, state: ToolState, stored_event: StoredEvent) -> ToolState | TransitionError:
        """:meth:`reduce` without the ``Result``: the new state or the refusal.

        The fold calls this directly; it saves wrapping every step in a
        ``Result`` that is unwrapped again at once.
        """
        event = stored_event.event
        if type(event) not in _TOOL_EVENT_CLASSES:
            return state
        tool_event = cast(ToolEvent, event)
        position = state.position(tool_event.invocation_id)
        record = None if position is None else state.record_at(position)
        outcome = TRANSITIONS[(None if record is None else record.status, type(tool_event))]
        if type(outcome) is TransitionErrorKind:
            return _refusal(outcome, stored_event, tool_event, record)
        at = stored_event.recorded_at
        if record is None or position is None:
            # Only a Requested event has a target status from "no record".
            requested = cast(ToolInvocationRequestedEvent, tool_event)
            return state.with_new(
                make_record(
                    requested.invocation_id,
                    requested.tool_name,
                    requested.tier,
                    requested.request,
                    ToolInvocationStatus.REQUESTED,
                    None,
                    at,
                    None,
                    None,
                    None,
                    None,
                )
            )
        if outcome is not ToolInvocationStatus.STARTED and at < record.requested_at:
            # Every other target status is terminal: the time check applies.
            return _refusal(TransitionErrorKind.TIME_REGRESSION, stored_event, tool_event, record)
        return state.with_updated(position, _advance(record, tool_event, at))


def _advance(record: ToolInvocationRecord, event: ToolEvent, at: datetime) -> ToolInvocationRecord:
    # Plain positional construction, not dataclasses.replace: this runs once per event.
    match event:
        case ToolExecutionStartedEvent():
            return make_record(
                record.invocation_id, record.tool_name, record.tier, record.request,
                ToolInvocationStatus.STARTED, None, record.requested_at, None, at, None, None,
            )  # fmt: skip
        case ToolExecutionCompletedEvent():
            return make_record(
                record.invocation_id, record.tool_name, record.tier, record.request,
                ToolInvocationStatus.COMPLETED, event.receipt, record.requested_at, at,
                record.started_at, None, None,
            )  # fmt: skip
        case ToolExecutionFailedEvent():
            return make_record(
                record.invocation_id, record.tool_name, record.tier, record.request,
                ToolInvocationStatus.FAILED, None, record.requested_at, at,
                record.started_at, event.reason, event.recoverable,
            )  # fmt: skip
        case ToolExecutionRejectedEvent():
            return make_record(
                record.invocation_id, record.tool_name, record.tier, record.request,
                ToolInvocationStatus.REJECTED, None, record.requested_at, at,
                record.started_at, event.reason, None,
            )  # fmt: skip
        case ToolInvocationRequestedEvent():
            raise AssertionError("a Requested event never advances an existing record")
        case _:
            assert_never(event)


def _refusal(
    kind: TransitionErrorKind,
    stored_event: StoredEvent,
    event: ToolEvent,
    record: ToolInvocationRecord | None,
) -> TransitionError:
    status = None if record is None else record.status
    event_type = type(event).__name__
    where = f"sequence {stored_event.sequence}: {event_type} for invocation {event.invocation_id!r}"
    match kind:
        case TransitionErrorKind.UNKNOWN_INVOCATION:
            detail = "no such invocation was requested"
        case TransitionErrorKind.DUPLICATE_INVOCATION:
            detail = f"the invocation was already requested (it is {status.name})"  # type: ignore[union-attr]
        case TransitionErrorKind.ILLEGAL_TRANSITION:
            detail = f"not allowed from {status.name}"  # type: ignore[union-attr]
        case TransitionErrorKind.TIME_REGRESSION:
            assert record is not None
            detail = (
                f"recorded at {stored_event.recorded_at.isoformat()}, "
                f"before the request at {record.requested_at.isoformat()}"
            )
    return TransitionError(
        kind=kind,
        sequence=stored_event.sequence,
        invocation_id=event.invocation_id,
        status=status,
        event_type=event_type,
        message=f"{where}: {kind.value}: {detail}",
    )
