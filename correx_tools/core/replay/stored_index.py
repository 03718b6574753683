"""What a store keeps, as it writes, so that questions about a session's past need no fold.

The rule that makes it possible: the lifecycle decides each event by its own
invocation's record alone (the transition table and the time check look at
nothing else), and a record changes only at its applied events: the request,
the start, the end. So the record of an invocation at any sequence ``k`` is
fixed by which of those three came at or before ``k``, and a session's state
at ``k`` is the records of the invocations requested by then, each as it stood.

A store keeps, per invocation, an `InvocationEntry` (the three
sequences and the fields each event set), and per event its `Effect`
(what the lifecycle did with it); `IndexWriter` computes both as events
are written, deciding each event with `advance`,
the reducer's own rule. `record_at`, `history_of`,
`changes_between` and `refusal_of` answer from them exactly what
a fold's ``Timeline`` answers; ``tests/test_stored_index.py`` holds them to the
fold on random sessions.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from typing import Any, NamedTuple, final

from ..lifecycle._engine.rows import (
    ID,
    REQUESTED_AT,
    STATUS,
    TOOL_EVENT_CLASSES,
    advance,
    new_row,
    record_from_fields,
)
from ..lifecycle.events import (
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolInvocationRequestedEvent,
    ToolReceipt,
)
from ..lifecycle.record import ToolInvocationRecord
from ..lifecycle.status import ToolInvocationStatus
from ..lifecycle.transitions import TransitionError, TransitionErrorKind
from ..tools.ids import InvocationId
from ..tools.request import ToolRequest
from ..tools.tier import Tier

Effect = int
"""What the lifecycle did with one event, as a store keeps it.

``0``: not a tool event. ``10 * before + after`` when applied, each a
`STATUS_CODES` value (``before`` 0 for a new record): ``1`` a request,
``12`` a start, ``13``..``15`` and ``23``..``25`` an end. ``-1``..``-4``
when refused, by `REFUSAL_CODES`.
"""

STATUS_CODES: Mapping[ToolInvocationStatus, int] = {
    status: code for code, status in enumerate(ToolInvocationStatus, start=1)
}
"""Each status as a small integer (``REQUESTED`` is 1 ... ``REJECTED`` 5)."""
STATUS_OF_CODE: Mapping[int, ToolInvocationStatus] = {
    code: status for status, code in STATUS_CODES.items()
}
REFUSAL_CODES: Mapping[TransitionErrorKind, int] = {
    kind: -code for code, kind in enumerate(TransitionErrorKind, start=1)
}
"""Each kind of refusal as a negative integer."""
TIER_CODES: Mapping[Tier, int] = {tier: tier.rank for tier in Tier}
TIER_OF_CODE: Mapping[int, Tier] = {code: tier for tier, code in TIER_CODES.items()}


@final
class InvocationEntry(NamedTuple):
    """One invocation as a store indexes it: when each applied event came, and what it set.

    ``ended_seq`` and the fields after it are ``None`` until the invocation ends;
    ``status`` is its status after every event written so far.
    """

    invocation_id: InvocationId
    tool_name: str
    tier: Tier
    request: ToolRequest
    requested_seq: int
    requested_at: datetime
    started_seq: int | None
    started_at: datetime | None
    ended_seq: int | None
    completed_at: datetime | None
    status: ToolInvocationStatus
    receipt: ToolReceipt | None
    reason: str | None
    recoverable: bool | None


def record_at(entry: InvocationEntry, sequence: int) -> ToolInvocationRecord | None:
    """The invocation's record right after event ``sequence`` (``None``: not requested yet)."""
    if sequence < entry.requested_seq:
        return None
    started = entry.started_seq is not None and entry.started_seq <= sequence
    if entry.ended_seq is not None and entry.ended_seq <= sequence:
        status = entry.status
        ended: tuple[Any, ...] = (entry.receipt, entry.completed_at)
        reason, recoverable = entry.reason, entry.recoverable
    else:
        status = ToolInvocationStatus.STARTED if started else ToolInvocationStatus.REQUESTED
        ended, reason, recoverable = (None, None), None, None
    return record_from_fields(
        (
            entry.invocation_id,
            entry.tool_name,
            entry.tier,
            entry.request,
            status,
            ended[0],
            entry.requested_at,
            ended[1],
            entry.started_at if started else None,
            reason,
            recoverable,
        )
    )


def history_of(entry: InvocationEntry) -> tuple[tuple[int, ToolInvocationRecord], ...]:
    """Each version of the record with the sequence that made it (``Timeline.history``)."""
    versions = []
    for sequence in (entry.requested_seq, entry.started_seq, entry.ended_seq):
        if sequence is not None:
            record = record_at(entry, sequence)
            assert record is not None  # every sequence here is at or after the request
            versions.append((sequence, record))
    return tuple(versions)


def changed_between(entry: InvocationEntry, a: int, b: int) -> bool:
    """Whether one of the invocation's applied events lies in ``(a, b]``."""
    return any(
        sequence is not None and a < sequence <= b
        for sequence in (entry.requested_seq, entry.started_seq, entry.ended_seq)
    )


def refusal_of(stored: StoredEvent, entry: InvocationEntry | None) -> TransitionError:
    """The refusal the fold gives ``stored``, which the store's index says was refused.

    ``entry`` is the invocation's entry in the event's session (``None`` if it
    has none); the record it had just before the event decides, as in the fold.
    """
    row: list[Any] = new_row()
    if entry is not None:
        before = record_at(entry, stored.sequence - 1)
        if before is not None:
            row = list(before)
    refused = advance(row, stored, stored.event)  # type: ignore[arg-type]  # a tool event
    if refused is None:
        raise AssertionError(
            f"sequence {stored.sequence}: the store's index says it was refused, "
            "but the lifecycle accepts it; rebuild the index (correx-tools reindex)"
        )
    return refused


def entries_of(
    events: Iterable[StoredEvent],
) -> tuple[list[InvocationEntry], list[tuple[StoredEvent, TransitionError]]]:
    """The entries a store's index would keep for one session's ``events``, in request
    order, and the events the lifecycle refused with why: the index of a source that
    keeps none, computed in one pass with the reducer's own rule (`advance`)."""
    rows: dict[str, list[Any]] = {}
    sequences: dict[str, list[Any]] = {}
    refused: list[tuple[StoredEvent, TransitionError]] = []
    for stored in events:
        event = stored.event
        if type(event) not in TOOL_EVENT_CLASSES:
            continue
        invocation: str = event.invocation_id  # type: ignore[attr-defined]
        row = rows.get(invocation) or new_row()
        before = row[STATUS]
        problem = advance(row, stored, event)  # type: ignore[arg-type]  # a tool event
        if problem is not None:
            refused.append((stored, problem))
            continue
        rows[invocation] = row
        if before is None:
            sequences[invocation] = [stored.sequence, None, None]
        else:
            sequences[invocation][1 if row[STATUS] is ToolInvocationStatus.STARTED else 2] = (
                stored.sequence
            )
    entries = []
    for invocation, row in rows.items():
        requested_seq, started_seq, ended_seq = sequences[invocation]
        r = record_from_fields(row)
        entries.append(InvocationEntry(
            r.invocation_id, r.tool_name, r.tier, r.request, requested_seq, r.requested_at,
            started_seq, r.started_at, ended_seq, r.completed_at, r.status, r.receipt, r.reason,
            r.recoverable,
        ))  # fmt: skip
    return entries, refused


# -- maintained as events are written ------------------------------------------------


class InvocationState(NamedTuple):
    """What deciding a new event for an invocation needs: its session, status and request time."""

    session_id: str
    status: ToolInvocationStatus
    requested_at: datetime


@final
class EntryChange(NamedTuple):
    """A change to one invocation's entry: ``kind`` is 1 (requested), 2 (started) or 3 (ended)."""

    kind: int
    invocation_id: str
    sequence: int
    recorded_at: datetime
    status: ToolInvocationStatus
    event: object


Counts = list[int]
"""Counters of a session: invocations by status (the five `STATUS_CODES`, in order),
then the refused events: six integers."""


class IndexWriter:
    """Decides each written event as the fold will, and says what the index must keep.

    One per write transaction. ``lookup`` gives the state of invocations the
    batch does not request itself (from the store's entries); ``counts`` are the
    session's counters after its last written event, updated in place.
    """

    __slots__ = ("_changes", "_counts", "_known", "_lookup", "_session")

    def __init__(
        self,
        session_id: str,
        counts: Counts,
        lookup: Callable[[Iterable[str]], Mapping[str, InvocationState]],
    ) -> None:
        self._session = session_id
        self._counts = counts
        self._lookup = lookup
        self._known: dict[str, list[Any]] = {}
        self._changes: list[EntryChange] = []

    def effects(self, events: list[StoredEvent]) -> list[Effect]:
        """The effect of each event, in order; `changes` then lists the entries' changes."""
        requested_here = {
            stored.event.invocation_id
            for stored in events
            if type(stored.event) is ToolInvocationRequestedEvent
        }
        wanted = {
            event.invocation_id  # type: ignore[attr-defined]
            for stored in events
            if type(event := stored.event) in TOOL_EVENT_CLASSES
            and event.invocation_id not in self._known  # type: ignore[attr-defined]
            and event.invocation_id not in requested_here  # type: ignore[attr-defined]
        }
        for invocation, state in self._lookup(wanted).items():
            if state.session_id == self._session:
                row: list[Any] = new_row()
                row[ID], row[STATUS], row[REQUESTED_AT] = (
                    invocation,
                    state.status,
                    state.requested_at,
                )
                self._known[invocation] = row
        return [self._effect(stored) for stored in events]

    def _effect(self, stored: StoredEvent) -> Effect:
        event = stored.event
        if type(event) not in TOOL_EVENT_CLASSES:
            return 0
        invocation: str = event.invocation_id  # type: ignore[attr-defined]
        row = self._known.get(invocation)
        if row is None:
            row = new_row()
        before = row[STATUS]
        refused = advance(row, stored, event)  # type: ignore[arg-type]  # a tool event
        counts = self._counts
        if refused is not None:
            counts[5] += 1
            return REFUSAL_CODES[refused.kind]
        self._known[invocation] = row
        after: ToolInvocationStatus = row[STATUS]
        after_code = STATUS_CODES[after]
        counts[after_code - 1] += 1
        before_code = 0 if before is None else STATUS_CODES[before]
        if before_code:
            counts[before_code - 1] -= 1
        kind = 1 if before_code == 0 else 2 if after is ToolInvocationStatus.STARTED else 3
        self._changes.append(
            EntryChange(kind, invocation, stored.sequence, stored.recorded_at, after, event)
        )
        return 10 * before_code + after_code

    def changes(self) -> list[EntryChange]:
        """The entries' changes, in the order of the events that made them."""
        return self._changes


def count_delta(counts: Counts, effect: Effect) -> None:
    """Move ``counts`` on over one event's effect (as `IndexWriter` did writing it)."""
    if effect < 0:
        counts[5] += 1
    elif effect:
        before, after = divmod(effect, 10)
        counts[after - 1] += 1
        if before:
            counts[before - 1] -= 1


def ended_fields(event: object) -> tuple[ToolReceipt | None, str | None, bool | None]:
    """``(receipt, reason, recoverable)`` an ending event sets on its record."""
    if isinstance(event, ToolExecutionCompletedEvent):
        return event.receipt, None, None
    if isinstance(event, ToolExecutionFailedEvent):
        return None, event.reason, event.recoverable
    if isinstance(event, ToolExecutionRejectedEvent):
        return None, event.reason, None
    raise TypeError(f"{type(event).__name__} does not end an invocation")


def ordered(entries: Iterable[InvocationEntry]) -> Iterator[InvocationEntry]:
    """Entries in request order (their requests' sequence)."""
    return iter(sorted(entries, key=_requested_seq))


def _requested_seq(entry: InvocationEntry) -> int:
    return entry.requested_seq
