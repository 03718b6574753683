"""The time-travel index the database stores keep with their events, the same for both.

Written in the same transaction as the events it covers (SQLite and PostgreSQL
differ only in their SQL):

* per event: its kind and invocation id, the fields the fold needs as typed
  columns (so a replay need not parse the JSON), its `effect
  <correx_tools.core.replay.stored_index.Effect>`, and a ``chain`` digest
  over it and every event before it in its session;
* per invocation: the sequences of its request, start and end, and its status;
* per session: a head (its counters after its last indexed event, and that
  event's chain) and a checkpoint of the counters every ``interval`` events.

It is derived data: `index_group` computes it from the events alone, a
store can drop it and rebuild it (``correx-tools reindex``), and a store trusts
a checkpoint only when its seal and its chain match the events it covers.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, NamedTuple, final

from ....core.lifecycle.events import (
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolReceipt,
    lazy_receipt,
)
from ....core.lifecycle.status import ToolInvocationStatus
from ....core.replay.stored_index import (
    TIER_CODES,
    TIER_OF_CODE,
    Counts,
    Effect,
    EntryChange,
    IndexWriter,
    InvocationEntry,
    InvocationState,
    count_delta,
)
from ....core.tools.request import lazy_request
from ..codec.encoding import EncodedEvent
from ..port import StaleIndex

CHECKPOINT_INTERVAL = 1_000
"""Events between two checkpoints of a session's counters (a store keeps the one it was made
with)."""

KIND_OTHER, KIND_REQUESTED, KIND_STARTED, KIND_COMPLETED, KIND_FAILED, KIND_REJECTED = range(6)
EMPTY_CHAIN = 0
"""The chain of a session before its first event."""


@final
@dataclass(slots=True)
class Head:
    """A session's index head: how far it reaches, its counters there, and that event's chain."""

    indexed_through: int = 0
    counts: Counts = field(default_factory=lambda: [0] * 6)
    chain: int = EMPTY_CHAIN


class TypedColumns(NamedTuple):
    """The fields a fold needs from one event, as columns: read without parsing the JSON.

    ``label`` is the tool name (Requested) or the reason (Failed, Rejected);
    ``code`` the tier's rank (Requested), the exit code (Completed) or
    ``recoverable`` as 0 or 1 (Failed).
    """

    kind: int
    invocation_id: str | None
    label: str | None
    code: int | None


def typed_columns(event: object) -> TypedColumns:
    """The typed columns of an event."""
    match event:
        case ToolInvocationRequestedEvent():
            return TypedColumns(
                KIND_REQUESTED, event.invocation_id, event.tool_name, TIER_CODES[event.tier]
            )
        case ToolExecutionStartedEvent():
            return TypedColumns(KIND_STARTED, event.invocation_id, None, None)
        case ToolExecutionCompletedEvent():
            return TypedColumns(KIND_COMPLETED, event.invocation_id, None, event.receipt.exit_code)
        case ToolExecutionFailedEvent():
            return TypedColumns(
                KIND_FAILED, event.invocation_id, event.reason, int(event.recoverable)
            )
        case ToolExecutionRejectedEvent():
            return TypedColumns(KIND_REJECTED, event.invocation_id, event.reason, None)
        case _:
            return TypedColumns(KIND_OTHER, None, None, None)


def claimed_columns(event: object) -> tuple[str, int, str]:
    """What a Requested event's claim writes besides its id and sequence: its tool and tier,
    then its id again (the order of the stores' claim statements' last parameters)."""
    requested: ToolInvocationRequestedEvent = event  # type: ignore[assignment]
    return requested.tool_name, TIER_CODES[requested.tier], requested.invocation_id


def chain_of(previous: int, sequence: int, encoded: EncodedEvent) -> int:
    """The chain after one event: a CRC-32 of the event as stored, continuing the chain
    before it (so a chain value stands for every event of the session up to it)."""
    header = f"{sequence}\x1f{encoded.recorded_at}\x1f{encoded.type}\x1f{encoded.version}\x1f"
    return zlib.crc32(encoded.data.encode("utf-8"), zlib.crc32(header.encode(), previous))


def seal_of(session_id: str, sequence: int, counts: Counts, chain: int) -> int:
    """A CRC-32 over a checkpoint's own fields: a checkpoint edited by hand no longer matches."""
    return zlib.crc32(f"{session_id}\x1f{sequence}\x1f{counts}\x1f{chain}".encode())


class IndexedEvent(NamedTuple):
    """One event as a database store writes it: the envelope, its typed columns, its index."""

    sequence: int
    encoded: EncodedEvent
    columns: TypedColumns
    effect: Effect
    chain: int


class Checkpoint(NamedTuple):
    """A session's counters after ``sequence``, with that event's chain and the seal."""

    sequence: int
    counts: tuple[int, ...]
    chain: int
    seal: int


@final
class IndexedGroup(NamedTuple):
    """What writing one session's events adds to the store: rows, entry changes, checkpoints."""

    events: list[IndexedEvent]
    changes: list[EntryChange]
    checkpoints: list[Checkpoint]
    head: Head


Lookup = Callable[[Iterable[str]], Mapping[str, InvocationState]]
"""The state of invocations already written, by id (those the store knows of)."""


def index_group(
    session_id: str,
    events: list[StoredEvent],
    encoded: list[EncodedEvent],
    *,
    head: Head,
    lookup: Lookup,
    interval: int,
) -> IndexedGroup:
    """Index ``events`` (numbered on from ``head``), deciding each as the fold will."""
    counts = list(head.counts)
    writer = IndexWriter(session_id, counts, lookup)
    effects = writer.effects(events)
    # Counters at each checkpoint within the batch: replay the effects from the head.
    running = list(head.counts)
    chain = head.chain
    rows: list[IndexedEvent] = []
    checkpoints: list[Checkpoint] = []
    for stored, envelope, effect in zip(events, encoded, effects, strict=True):
        chain = chain_of(chain, stored.sequence, envelope)
        rows.append(
            IndexedEvent(stored.sequence, envelope, typed_columns(stored.event), effect, chain)
        )
        count_delta(running, effect)
        if stored.sequence % interval == 0:
            seal = seal_of(session_id, stored.sequence, running, chain)
            checkpoints.append(Checkpoint(stored.sequence, tuple(running), chain, seal))
    after = Head(events[-1].sequence if events else head.indexed_through, counts, chain)
    return IndexedGroup(rows, writer.changes(), checkpoints, after)


ENTRY_COLUMNS = 18
"""How many columns `entry_of` reads (see the stores' entry queries): the invocation's
id, request sequence, request time, tool and tier; its Requested event's data, kind and id;
its start's sequence and time; its end's sequence and time; its status; the end's label and
code; and the data, kind and id of its Completed event, if it completed."""

_ENDINGS = {
    KIND_COMPLETED: ToolInvocationStatus.COMPLETED,
    KIND_FAILED: ToolInvocationStatus.FAILED,
    KIND_REJECTED: ToolInvocationStatus.REJECTED,
}
_new_entry = tuple.__new__


def entry_of(row: Sequence[Any], when: Callable[[Any], datetime]) -> InvocationEntry:
    """An invocation's entry from a row of the stores' entry query; `StaleIndex` if it
    does not hold together (its request is not that invocation's Requested event, or its
    status and sequences disagree).

    ``when`` turns a stored timestamp into a UTC ``datetime``.
    """
    (invocation, requested_seq, requested_at, tool_name, tier, r_data, r_kind, r_id,
     started_seq, started_at, ended_seq, completed_at, status, e_label, e_code,
     e_data, e_kind, e_id) = row  # fmt: skip
    if (
        r_kind != KIND_REQUESTED
        or r_id != invocation
        or (ended_seq is None) != (status in _OPEN_CODES)
        or (started_seq is None) != (started_at is None)
        or not requested_seq < (started_seq or requested_seq + 1) <= (ended_seq or _AFTER_ALL)
        or (ended_seq is not None and ended_seq <= requested_seq)
        or (status == KIND_COMPLETED and (e_kind != KIND_COMPLETED or e_id != invocation))
    ):
        raise StaleIndex(f"the index of invocation {invocation!r} does not match its events")
    receipt: ToolReceipt | None = None
    reason: str | None = None
    recoverable: bool | None = None
    if ended_seq is None:
        final = _OPEN[started_seq is not None]
        ended_at = None
    else:
        final = _ENDINGS[status]
        ended_at = when(completed_at)
        if status == KIND_COMPLETED:
            receipt = lazy_receipt(e_code, e_data)
        else:
            reason = e_label
            recoverable = (e_code == 1) if status == KIND_FAILED else None
    entry: InvocationEntry = _new_entry(
        InvocationEntry,
        (
            invocation,
            tool_name,
            TIER_OF_CODE[tier],
            lazy_request(tool_name, r_data, _ARGUMENTS),
            requested_seq,
            when(requested_at),
            started_seq,
            None if started_at is None else when(started_at),
            ended_seq,
            ended_at,
            final,
            receipt,
            reason,
            recoverable,
        ),
    )
    return entry


_OPEN_CODES = frozenset({1, 2})
_AFTER_ALL = 1 << 62
_ARGUMENTS = ("request", "arguments")
_OPEN = {False: ToolInvocationStatus.REQUESTED, True: ToolInvocationStatus.STARTED}
