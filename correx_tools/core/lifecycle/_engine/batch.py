"""The fold's batch path: many events applied to a ``ToolState``, one persistent update.

Stepping builds a new persistent state for every event: a new record, a new
path in the trie, a new index entry, a new ``ToolState``. A fold that keeps
only the final state (or a checkpoint every so many events) needs none of
the states in between. `ToolStateBuilder` is an *evolver* for that
case, local to one fold: it decides each event exactly as the reducer does
(through `advance`), keeps the
fields of each touched invocation in a mutable row, and writes them
into the persistent state only when asked (`ToolStateBuilder.state`).
The state it gives equals, record for record, the one the step-by-step
reducer gives; ``tests/test_batch.py`` checks that on random sessions.
The builder is the tool projection's batch runner
(`BatchRunner`): the fold lets it
run the loop itself (`ToolStateBuilder.run`) for as long as the events
simply continue the session (up to each checkpoint when it records a
timeline), and takes back each event that needs the fold's judgement. That
loop has ``advance``'s two common cases written out (see its docstring and
``docs/design.md``).

Speeds up: the reducer's step (`rows.advance` on the transition table),
applied to many events. Equal to: stepping the reducer over the same events,
state for state; ``tests/test_batch.py`` checks that on random, disordered and
resumed sessions, and ``tests/mutants.py`` plants bugs in the copy of the
lifecycle written out here.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import final

from ..events import StoredEvent, ToolEvent, ToolInvocationRequestedEvent
from ..record import ToolInvocationRecord
from ..state import ToolState
from ..status import TERMINAL, ToolInvocationStatus
from ..transitions import TransitionError, TransitionErrorKind
from .rows import (
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
    TABLE,
    TIER,
    TOOL,
    TOOL_EVENT_CLASSES,
    Row,
    advance,
    record_from_fields,
)


@final
class ToolStateBuilder:
    """Applies events to a starting ``ToolState``; `state` gives the state so far.

    Internal to a fold: it is mutable, and each `state` call commits
    what was applied since the last one into a new persistent state (the
    states it returns never change).

    An invocation still open (requested or started) is a mutable *row*: its
    record's fields plus its position. When it ends, its record is built once
    and the row goes back to a pool for the next request, so a fold keeps as
    many rows as invocations are open at once. Rows that lived as long as the
    fold would outlive enough collections to set off full ones, each walking
    every live object (the events too).
    """

    __slots__ = (
        "_added",
        "_dirty",
        "_fresh",
        "_known",
        "_open",
        "_placed",
        "_spare",
        "_state",
        "_updated",
    )

    def __init__(self, state: ToolState) -> None:
        self._state = state
        self._known = len(state)  # records committed
        self._placed = state.placed_ids()  # no committed record has an id outside it
        self._open: dict[str, Row] = {}  # open invocations touched so far, by id
        self._dirty: dict[int, Row] = {}  # open rows changed since the last commit
        # Records ended since then: those requested since (position known + i, a
        # slot each, None while open) and those committed before (by position).
        self._fresh: list[ToolInvocationRecord | None] = []
        self._updated: dict[int, ToolInvocationRecord] = {}
        self._added: dict[str, int] = {}  # ids requested since then
        self._spare: list[Row] = []

    def apply(self, stored_event: StoredEvent) -> TransitionError | None:
        """Apply one event; the refusal if the lifecycle refuses it (nothing changes then)."""
        event = stored_event.event
        if type(event) not in TOOL_EVENT_CLASSES:
            return None
        tool_event: ToolEvent = event  # type: ignore[assignment]  # checked just above
        row = self._open.get(tool_event.invocation_id)
        if row is None:
            return self._apply_to_closed(stored_event, tool_event)
        refused = advance(row, stored_event, tool_event)
        if refused is not None:
            return refused
        if row[STATUS] in TERMINAL:
            self._end(row)
        else:
            self._dirty[row[_POSITION]] = row
        return None

    def run(  # noqa: PLR0915  # one loop on purpose: it exists to save calls per event
        self,
        events: Iterator[StoredEvent],
        last: int,
        previous: StoredEvent | None,
        session: str | None,
    ) -> tuple[int, StoredEvent | None, str | None, StoredEvent | None]:
        """Apply ``events`` for as long as each simply continues the session.

        The fold's own loop (given a slice at a time when the fold records a
        timeline, to commit each checkpoint in between). It takes an event that
        is next in sequence (``last + 1``), of ``session`` (the first event
        sets it), and accepted by the lifecycle; at the first event that is
        not all three it stops and hands that event back unapplied, for the
        fold to decide. Returns ``(last, previous, session, stopped)``: the
        last sequence and event applied, the session, and the event it
        stopped at (``None`` when ``events`` ran out).

        The lifecycle of an open invocation and the request of a new one are
        `advance` written out here, on the
        same transition table: calls per event were a quarter of a fold.
        Everything else is decided by ``advance``: an event for an ended or
        committed invocation (through `_apply_to_closed`), and every
        refused event, which the loop hands back and the fold then gives to
        `apply`. ``tests/test_batch.py`` holds this loop to the
        stepping reducer.
        """
        open_rows, dirty, spare = self._open, self._dirty, self._spare
        fresh, updated, added, known = self._fresh, self._updated, self._added, self._known
        placed = self._placed
        for stored_event in events:
            sequence = stored_event.sequence
            if sequence != last + 1 or stored_event.session_id is not session:
                # The fold's test of the next event, with its slow branch (an
                # equal session id that is another object, or none yet) taken here.
                if sequence == last + 1 and (session is None or stored_event.session_id == session):
                    session = stored_event.session_id
                else:
                    return last, previous, session, stored_event
            event = stored_event.event
            if type(event) in TOOL_EVENT_CLASSES:
                tool_event: ToolEvent = event  # type: ignore[assignment]  # checked just above
                invocation = tool_event.invocation_id
                row = open_rows.get(invocation)
                if row is not None:
                    outcome = TABLE[row[STATUS]][type(event)]
                    if type(outcome) is TransitionErrorKind:
                        return last, previous, session, stored_event
                    at = stored_event.recorded_at
                    if outcome is _STARTED:
                        row[STATUS] = _STARTED
                        row[STARTED_AT] = at
                        dirty[row[_POSITION]] = row
                    elif at < row[REQUESTED_AT]:
                        return last, previous, session, stored_event
                    else:
                        # Every other outcome from an open row is terminal: the record now.
                        row[STATUS] = outcome
                        row[COMPLETED_AT] = at
                        if outcome is _COMPLETED:
                            row[RECEIPT] = tool_event.receipt  # type: ignore[union-attr]  # Completed
                        else:
                            row[REASON] = tool_event.reason  # type: ignore[union-attr]  # Failed, Rejected
                            if outcome is _FAILED:
                                row[RECOVERABLE] = tool_event.recoverable  # type: ignore[union-attr]
                        position = row[_POSITION]
                        record = record_from_fields(row[:_POSITION])
                        if position >= known:
                            fresh[position - known] = record
                        else:
                            updated[position] = record
                        dirty.pop(position, None)
                        del open_rows[invocation]
                        spare.append(row)
                elif (
                    _NEW[type(event)] is _REQUESTED
                    and invocation not in added
                    and not (invocation in placed and self._state.position(invocation) is not None)
                ):
                    requested: ToolInvocationRequestedEvent = event  # type: ignore[assignment]
                    row = spare.pop() if spare else [None] * _ROW
                    position = known + len(fresh)
                    row[ID] = invocation
                    row[TOOL] = requested.tool_name
                    row[TIER] = requested.tier
                    row[REQUEST] = requested.request
                    row[STATUS] = _REQUESTED
                    row[RECEIPT] = row[COMPLETED_AT] = row[STARTED_AT] = None
                    row[REASON] = row[RECOVERABLE] = None
                    row[REQUESTED_AT] = stored_event.recorded_at
                    row[_POSITION] = position
                    fresh.append(None)
                    added[invocation] = position
                    open_rows[invocation] = row
                    dirty[position] = row
                elif self._apply_to_closed(stored_event, tool_event) is not None:
                    return last, previous, session, stored_event
            last = sequence
            previous = stored_event
        return last, previous, session, None

    def _apply_to_closed(
        self, stored_event: StoredEvent, event: ToolEvent
    ) -> TransitionError | None:
        """An event for an invocation with no open row: a new one, or one ended or untouched."""
        invocation = event.invocation_id
        position = self._added.get(invocation)
        if position is None and self._known:
            position = self._state.position(invocation)
        if position is None:
            row = self._spare.pop() if self._spare else [None] * _ROW
            row[STATUS] = None
        else:
            known = self._known
            record = (
                self._fresh[position - known]
                if position >= known
                else self._updated.get(position) or self._state.record_at(position)
            )
            row = [*record, position]  # type: ignore[misc]  # a closed invocation has its record
        refused = advance(row, stored_event, event)
        if refused is not None:
            self._spare.append(row)
            return refused
        if position is None:
            position = self._known + len(self._fresh)
            self._fresh.append(None)
            self._added[invocation] = position
            row[_POSITION] = position
        if row[STATUS] in TERMINAL:
            self._end(row)
        else:
            self._open[invocation] = row
            self._dirty[position] = row
        return None

    def _end(self, row: Row) -> None:
        """An invocation reached its final status: its record now, its row back to the pool."""
        position = row[_POSITION]
        self._keep(position, record_from_fields(row[:_POSITION]))
        self._dirty.pop(position, None)
        self._open.pop(row[0], None)
        self._spare.append(row)

    def _keep(self, position: int, record: ToolInvocationRecord) -> None:
        """Hold ``record`` for the next commit: in its fresh slot, or as an update."""
        known = self._known
        if position >= known:
            self._fresh[position - known] = record
        else:
            self._updated[position] = record

    def state(self) -> ToolState:
        """The state after every event applied so far (committed; later events start from it)."""
        if not self._dirty and not self._fresh and not self._updated:
            return self._state
        for position, row in self._dirty.items():
            self._keep(position, record_from_fields(row[:_POSITION]))
        # Every fresh slot is filled now: an invocation requested since the last
        # commit has either ended or is open and was changed since then.
        appended: list[ToolInvocationRecord] = self._fresh  # type: ignore[assignment]
        self._state = self._state.with_batch(self._updated, appended, self._added)
        self._known += len(appended)
        self._placed = self._state.placed_ids()
        self._dirty = {}
        self._fresh = []
        self._updated = {}
        self._added = {}
        return self._state


_POSITION = FIELDS
"""A builder's row is the record's fields in order, then the record's position."""
_ROW = _POSITION + 1

_NEW = TABLE[None]  # what each event class does to an invocation not requested yet
_REQUESTED = ToolInvocationStatus.REQUESTED
_STARTED = ToolInvocationStatus.STARTED
_COMPLETED = ToolInvocationStatus.COMPLETED
_FAILED = ToolInvocationStatus.FAILED
