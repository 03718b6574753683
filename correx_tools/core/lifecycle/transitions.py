"""The lifecycle transition table, as data, and the error a refused step returns.

Rows are what the state holds for the event's invocation (no record, or the
record's status); columns are the event's type. Each cell is the status the
record moves to, or the kind of error the event is. This table is the one
place the rules live: the reducer only looks cells up.

    ===========  =========  =======  =========  =======  ========
    from/event   Requested  Started  Completed  Failed   Rejected
    ===========  =========  =======  =========  =======  ========
    (no record)  REQUESTED  unknown  unknown    unknown  unknown
    REQUESTED    duplicate  STARTED  illegal    FAILED   REJECTED
    STARTED      duplicate  illegal  COMPLETED  FAILED   REJECTED
    terminal     duplicate  illegal  illegal    illegal  illegal
    ===========  =========  =======  =========  =======  ========

A terminal event recorded before its invocation was requested is a
``TIME_REGRESSION``.
"""

from __future__ import annotations

import enum
from collections.abc import Mapping
from datetime import datetime
from types import MappingProxyType
from typing import TypeAlias, assert_never, final

from ..tools.errors import CorrexError, error_value
from ..tools.ids import InvocationId
from .events import (
    ToolEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
)
from .status import ToolInvocationStatus


@final
class TransitionErrorKind(enum.Enum):
    """Why the reducer refused an event."""

    DUPLICATE_INVOCATION = "duplicate invocation"
    UNKNOWN_INVOCATION = "unknown invocation"
    ILLEGAL_TRANSITION = "illegal transition"
    TIME_REGRESSION = "time regression"


@final
@error_value
class TransitionError(CorrexError):
    """A refused reducer step: what was refused, where in the stream, and why.

    ``status`` is the record's status before the event (``None`` when the
    invocation has no record); ``event_type`` is the event's class name.
    """

    kind: TransitionErrorKind
    sequence: int
    invocation_id: InvocationId
    status: ToolInvocationStatus | None
    event_type: str
    message: str


Outcome: TypeAlias = ToolInvocationStatus | TransitionErrorKind
Row: TypeAlias = ToolInvocationStatus | None

_S = ToolInvocationStatus
_E = TransitionErrorKind
_COLUMNS: tuple[type[ToolEvent], ...] = (
    ToolInvocationRequestedEvent,
    ToolExecutionStartedEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
)
_NO_RECORD: tuple[Outcome, ...] = (
    _S.REQUESTED, _E.UNKNOWN_INVOCATION, _E.UNKNOWN_INVOCATION,
    _E.UNKNOWN_INVOCATION, _E.UNKNOWN_INVOCATION,
)  # fmt: skip
_FROM_REQUESTED: tuple[Outcome, ...] = (
    _E.DUPLICATE_INVOCATION, _S.STARTED, _E.ILLEGAL_TRANSITION, _S.FAILED, _S.REJECTED,
)  # fmt: skip
_FROM_STARTED: tuple[Outcome, ...] = (
    _E.DUPLICATE_INVOCATION, _E.ILLEGAL_TRANSITION, _S.COMPLETED, _S.FAILED, _S.REJECTED,
)  # fmt: skip
_FROM_TERMINAL: tuple[Outcome, ...] = (
    _E.DUPLICATE_INVOCATION, _E.ILLEGAL_TRANSITION, _E.ILLEGAL_TRANSITION,
    _E.ILLEGAL_TRANSITION, _E.ILLEGAL_TRANSITION,
)  # fmt: skip

_ROWS: dict[Row, tuple[Outcome, ...]] = {
    None: _NO_RECORD,
    _S.REQUESTED: _FROM_REQUESTED,
    _S.STARTED: _FROM_STARTED,
    _S.COMPLETED: _FROM_TERMINAL,
    _S.FAILED: _FROM_TERMINAL,
    _S.REJECTED: _FROM_TERMINAL,
}

TRANSITIONS: Mapping[tuple[Row, type[ToolEvent]], Outcome] = MappingProxyType(
    {
        (row, column): outcome
        for row, outcomes in _ROWS.items()
        for column, outcome in zip(_COLUMNS, outcomes, strict=True)
    }
)
"""Every cell of the table: ``(status or None, event class) -> outcome``."""


def transition(row: Row, event_type: type[ToolEvent]) -> Outcome:
    """Look one cell of the table up.

    >>> transition(ToolInvocationStatus.STARTED, ToolExecutionCompletedEvent)
    <ToolInvocationStatus.COMPLETED: 'completed'>
    >>> transition(None, ToolExecutionStartedEvent)
    <TransitionErrorKind.UNKNOWN_INVOCATION: 'unknown invocation'>
    """
    return TRANSITIONS[(row, event_type)]


def refusal(
    kind: TransitionErrorKind,
    *,
    sequence: int,
    recorded_at: datetime,
    event: ToolEvent,
    status: ToolInvocationStatus | None,
    requested_at: datetime | None,
) -> TransitionError:
    """The error of a refused event: its kind, where it stands and a readable message.

    ``status`` and ``requested_at`` are the invocation's before the event
    (``None`` when it has no record).
    """
    event_type = type(event).__name__
    where = f"sequence {sequence}: {event_type} for invocation {event.invocation_id!r}"
    was = "none" if status is None else status.name
    match kind:
        case TransitionErrorKind.UNKNOWN_INVOCATION:
            detail = "no such invocation was requested"
        case TransitionErrorKind.DUPLICATE_INVOCATION:
            detail = f"the invocation was already requested (it is {was})"
        case TransitionErrorKind.ILLEGAL_TRANSITION:
            detail = f"not allowed from {was}"
        case TransitionErrorKind.TIME_REGRESSION:
            before = (
                ""
                if requested_at is None
                else f", before the request at {requested_at.isoformat()}"
            )
            detail = f"recorded at {recorded_at.isoformat()}{before}"
        case _:
            assert_never(kind)
    return TransitionError(
        kind=kind,
        sequence=sequence,
        invocation_id=event.invocation_id,
        status=status,
        event_type=event_type,
        message=f"{where}: {kind.value}: {detail}",
    )
