"""The tool reducer: one stored event applied to a ``ToolState``."""

from __future__ import annotations

from typing import Any, Protocol, TypeAlias, final

from returns.result import Failure, Result, Success

from .events import (
    TOOL_EVENT_TYPES,
    StoredEvent,
    ToolEvent,
    ToolInvocationRequestedEvent,
)
from .record import ToolInvocationRecord, record_from_fields
from .state import ToolState
from .status import ToolInvocationStatus
from .transitions import TRANSITIONS, Outcome, TransitionError, TransitionErrorKind

TOOL_EVENT_CLASSES: frozenset[type] = frozenset(TOOL_EVENT_TYPES)
"""The classes of the five tool events (an exact-type check: the hot path's test)."""


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
        if type(event) not in TOOL_EVENT_CLASSES:
            return state
        tool_event: ToolEvent = event  # type: ignore[assignment]  # checked just above
        position = state.position(tool_event.invocation_id)
        row = [None] * _FIELDS if position is None else list(state.record_at(position))
        refused = advance(row, stored_event, tool_event)
        if refused is not None:
            return refused
        new = record_from_fields(row)
        return state.with_new(new) if position is None else state.with_updated(position, new)


Row: TypeAlias = list[Any]
"""A record's eleven fields in order (more items may follow), changed in place by the lifecycle.

A row whose status field is ``None`` stands for an invocation with no record yet.
"""

_FIELDS = len(ToolInvocationRecord._fields)
# Row positions of ToolInvocationRecord's fields.
(_ID, _TOOL, _TIER, _REQUEST, _STATUS, _RECEIPT, _REQUESTED_AT, _COMPLETED_AT, _STARTED_AT,
 _REASON, _RECOVERABLE) = range(_FIELDS)  # fmt: skip


def advance(row: Row, stored_event: StoredEvent, event: ToolEvent) -> TransitionError | None:
    """Apply ``event`` to one invocation's ``row`` in place; the refusal, if it is refused.

    ``row`` holds the record's fields (status ``None``: not requested yet); a
    refusal leaves it as it was. This is the whole lifecycle of one record:
    the transition table, the time check and the fields each status sets. The
    reducer's step and the fold's batch path (:mod:`correx_tools.core.batch`)
    both go through it, so they cannot disagree.
    """
    outcome = _TABLE[row[_STATUS]][type(event)]
    if type(outcome) is TransitionErrorKind:
        return _refusal(outcome, stored_event, event, row)
    at = stored_event.recorded_at
    if outcome is _REQUESTED:
        # Only a Requested event, on no record, gets here: every field is set afresh.
        requested: ToolInvocationRequestedEvent = event  # type: ignore[assignment]
        row[_ID] = requested.invocation_id
        row[_TOOL] = requested.tool_name
        row[_TIER] = requested.tier
        row[_REQUEST] = requested.request
        row[_STATUS] = _REQUESTED
        row[_RECEIPT] = row[_COMPLETED_AT] = row[_STARTED_AT] = None
        row[_REASON] = row[_RECOVERABLE] = None
        row[_REQUESTED_AT] = at
        return None
    if outcome is _STARTED:
        row[_STATUS] = _STARTED
        row[_STARTED_AT] = at
        return None
    if at < row[_REQUESTED_AT]:
        # Every other target status is terminal: the time check applies.
        return _refusal(TransitionErrorKind.TIME_REGRESSION, stored_event, event, row)
    row[_STATUS] = outcome
    row[_COMPLETED_AT] = at
    if outcome is _COMPLETED:
        row[_RECEIPT] = event.receipt  # type: ignore[union-attr]  # a Completed event
    else:
        row[_REASON] = event.reason  # type: ignore[union-attr]  # a Failed or Rejected event
        if outcome is _FAILED:
            row[_RECOVERABLE] = event.recoverable  # type: ignore[union-attr]  # a Failed event
    return None


_REQUESTED = ToolInvocationStatus.REQUESTED
_STARTED = ToolInvocationStatus.STARTED
_COMPLETED = ToolInvocationStatus.COMPLETED
_FAILED = ToolInvocationStatus.FAILED


def _by_row() -> dict[ToolInvocationStatus | None, dict[type, Outcome]]:
    """The transition table by row, then by event class: two plain lookups per event."""
    rows: dict[ToolInvocationStatus | None, dict[type, Outcome]] = {}
    for (row, column), outcome in TRANSITIONS.items():
        rows.setdefault(row, {})[column] = outcome
    return rows


_TABLE = _by_row()


def _refusal(
    kind: TransitionErrorKind, stored_event: StoredEvent, event: ToolEvent, row: Row
) -> TransitionError:
    status: ToolInvocationStatus | None = row[_STATUS]
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
            detail = (
                f"recorded at {stored_event.recorded_at.isoformat()}, "
                f"before the request at {row[_REQUESTED_AT].isoformat()}"
            )
    return TransitionError(
        kind=kind,
        sequence=stored_event.sequence,
        invocation_id=event.invocation_id,
        status=status,
        event_type=event_type,
        message=f"{where}: {kind.value}: {detail}",
    )
