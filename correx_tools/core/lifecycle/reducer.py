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
from .record import (
    COMPLETED_AT,
    FIELDS,
    ID,
    REASON,
    RECEIPT,
    RECOVERABLE,
    REQUEST,
    REQUESTED_AT,
    STARTED_AT,
    STATUS,
    TIER,
    TOOL,
    record_from_fields,
)
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
    """The reducer of the lifecycle table in `correx_tools.core.lifecycle.transitions`.

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
        """`reduce` without the ``Result``: the new state or the refusal.

        The fold calls this directly; it saves wrapping every step in a
        ``Result`` that is unwrapped again at once.
        """
        event = stored_event.event
        if type(event) not in TOOL_EVENT_CLASSES:
            return state
        tool_event: ToolEvent = event  # type: ignore[assignment]  # checked just above
        position = state.position(tool_event.invocation_id)
        row = [None] * FIELDS if position is None else list(state.record_at(position))
        refused = advance(row, stored_event, tool_event)
        if refused is not None:
            return refused
        new = record_from_fields(row)
        return state.with_new(new) if position is None else state.with_updated(position, new)


Row: TypeAlias = list[Any]
"""A record's eleven fields in order (more items may follow), changed in place by the lifecycle.

A row whose status field is ``None`` stands for an invocation with no record yet.
"""


def advance(row: Row, stored_event: StoredEvent, event: ToolEvent) -> TransitionError | None:
    """Apply ``event`` to one invocation's ``row`` in place; the refusal, if it is refused.

    ``row`` holds the record's fields (status ``None``: not requested yet); a
    refusal leaves it as it was. This is the whole lifecycle of one record:
    the transition table, the time check and the fields each status sets. The
    reducer's step and the fold's batch path (`correx_tools.core.lifecycle._engine.batch`)
    both go through it. The batch path's own loop
    (`run`) also has its two
    common cases written out: a change here is a change there too, and
    ``tests/test_batch.py`` holds the two to each other.
    """
    outcome = TABLE[row[STATUS]][type(event)]
    if type(outcome) is TransitionErrorKind:
        return _refusal(outcome, stored_event, event, row)
    at = stored_event.recorded_at
    if outcome is _REQUESTED:
        # Only a Requested event, on no record, gets here: every field is set afresh.
        requested: ToolInvocationRequestedEvent = event  # type: ignore[assignment]
        row[ID] = requested.invocation_id
        row[TOOL] = requested.tool_name
        row[TIER] = requested.tier
        row[REQUEST] = requested.request
        row[STATUS] = _REQUESTED
        row[RECEIPT] = row[COMPLETED_AT] = row[STARTED_AT] = None
        row[REASON] = row[RECOVERABLE] = None
        row[REQUESTED_AT] = at
        return None
    if outcome is _STARTED:
        row[STATUS] = _STARTED
        row[STARTED_AT] = at
        return None
    if at < row[REQUESTED_AT]:
        # Every other target status is terminal: the time check applies.
        return _refusal(TransitionErrorKind.TIME_REGRESSION, stored_event, event, row)
    row[STATUS] = outcome
    row[COMPLETED_AT] = at
    if outcome is _COMPLETED:
        row[RECEIPT] = event.receipt  # type: ignore[union-attr]  # a Completed event
    else:
        row[REASON] = event.reason  # type: ignore[union-attr]  # a Failed or Rejected event
        if outcome is _FAILED:
            row[RECOVERABLE] = event.recoverable  # type: ignore[union-attr]  # a Failed event
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


TABLE = _by_row()
"""The transition table by row, then by event class: ``TABLE[status][type(event)]`` is
the status the invocation moves to, or the ``TransitionErrorKind`` that refuses it
(status ``None``: not requested yet)."""


def _refusal(
    kind: TransitionErrorKind, stored_event: StoredEvent, event: ToolEvent, row: Row
) -> TransitionError:
    status: ToolInvocationStatus | None = row[STATUS]
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
                f"before the request at {row[REQUESTED_AT].isoformat()}"
            )
    return TransitionError(
        kind=kind,
        sequence=stored_event.sequence,
        invocation_id=event.invocation_id,
        status=status,
        event_type=event_type,
        message=f"{where}: {kind.value}: {detail}",
    )
