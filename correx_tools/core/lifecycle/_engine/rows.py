"""A record as a mutable row, and one invocation's lifecycle applied to it in place.

A fold that keeps only some states (`batch`) and a store's index
(`correx_tools.core.replay.stored_index`) change an invocation's fields in
place, many times, before a record is built once. `advance` is the lifecycle
of one record on such a row: the transition table
(`correx_tools.core.lifecycle.transitions`), the time check, and the fields
each status sets. The reducer's step goes through it too, so the rules are
applied by this one function everywhere but in the batch path's own loop,
which has its two common cases written out (``docs/design.md``).

Speeds up: building a record per event. Equal to: the reducer's step on
records; ``tests/test_reducer.py`` and ``tests/test_batch.py`` hold them to
each other.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeAlias

from ..events import (
    TOOL_EVENT_TYPES,
    StoredEvent,
    ToolEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolInvocationRequestedEvent,
)
from ..record import ToolInvocationRecord
from ..status import ToolInvocationStatus
from ..transitions import TRANSITIONS, Outcome, TransitionError, TransitionErrorKind, refusal

Row: TypeAlias = list[Any]
"""A record's eleven fields in order (more items may follow), changed in place by `advance`.

A row whose status field is ``None`` stands for an invocation with no record yet.
"""

# Where each field sits in a record and in a row (tests/test_reducer.py checks the order).
(ID, TOOL, TIER, REQUEST, STATUS, RECEIPT, REQUESTED_AT, COMPLETED_AT, STARTED_AT, REASON,
 RECOVERABLE) = range(len(ToolInvocationRecord._fields))  # fmt: skip
FIELDS = len(ToolInvocationRecord._fields)
"""How many fields a record has."""

TOOL_EVENT_CLASSES: frozenset[type] = frozenset(TOOL_EVENT_TYPES)
"""The classes of the five tool events (an exact-type check: the hot path's test)."""

_new_tuple = tuple.__new__


def record_from_fields(fields: Sequence[object]) -> ToolInvocationRecord:
    """A record from its eleven fields in order (a row's first eleven)."""
    return _new_tuple(ToolInvocationRecord, fields)


def new_row() -> Row:
    """The row of an invocation with no record yet."""
    return [None] * FIELDS


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

_REQUESTED = ToolInvocationStatus.REQUESTED
_STARTED = ToolInvocationStatus.STARTED


def advance(row: Row, stored_event: StoredEvent, event: ToolEvent) -> TransitionError | None:
    """Apply ``event`` (the tool event ``stored_event`` holds) to one invocation's ``row`` in
    place; the refusal, if it is refused, which leaves the row as it was."""
    outcome = TABLE[row[STATUS]][type(event)]
    if type(outcome) is TransitionErrorKind:
        return _refused(outcome, row, stored_event, event)
    at = stored_event.recorded_at
    if outcome is _REQUESTED:
        # Only a Requested event, on no record, gets here: every field is set afresh.
        assert isinstance(event, ToolInvocationRequestedEvent)
        row[ID] = event.invocation_id
        row[TOOL] = event.tool_name
        row[TIER] = event.tier
        row[REQUEST] = event.request
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
        return _refused(TransitionErrorKind.TIME_REGRESSION, row, stored_event, event)
    row[STATUS] = outcome
    row[COMPLETED_AT] = at
    match event:
        case ToolExecutionCompletedEvent():
            row[RECEIPT] = event.receipt
        case ToolExecutionFailedEvent():
            row[REASON] = event.reason
            row[RECOVERABLE] = event.recoverable
        case ToolExecutionRejectedEvent():
            row[REASON] = event.reason
    return None


def _refused(
    kind: TransitionErrorKind, row: Row, stored_event: StoredEvent, event: ToolEvent
) -> TransitionError:
    return refusal(
        kind,
        sequence=stored_event.sequence,
        recorded_at=stored_event.recorded_at,
        event=event,
        status=row[STATUS],
        requested_at=row[REQUESTED_AT],
    )
