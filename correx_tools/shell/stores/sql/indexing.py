"""The time-travel index the database stores keep with their events, the same for both.

Written in the same transaction as the events it covers (SQLite and PostgreSQL
differ only in their SQL):

* per event: its typed columns (`correx_tools.shell.stores.codec.columns`: the
  fields a fold needs, so a replay need not parse the JSON), its `effect
  <correx_tools.core.replay.stored_index.Effect>`, and a ``chain``: a CRC-32
  over the event as stored *and* those derived columns, continuing the chain of
  the event before it — so one value vouches for every column of every event of
  the session up to it, and a reader that recomputes it over what it reads
  catches a changed payload, a changed typed column, a missing or an inserted
  event;
* per invocation: its row (`images`), sealed;
* per session: a head (its counters after its last indexed event, and that
  event's chain), sealed, and a checkpoint of the counters every ``interval``
  events, sealed too.

It is derived data: `index_group` computes it from the events alone, a store
can drop it and rebuild it (``correx-tools reindex``), and nothing of it is
used without its seal or chain matching.
"""

from __future__ import annotations

import zlib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple, final

from ....core.lifecycle.events import StoredEvent
from ....core.replay.stored_index import (
    Counts,
    Effect,
    EntryChange,
    IndexWriter,
    InvocationState,
    count_delta,
)
from ..codec.columns import TypedColumns, typed_columns
from ..codec.encoding import EncodedEvent

CHECKPOINT_INTERVAL = 1_000
"""Events between two checkpoints of a session's counters (a store keeps the one it was made
with)."""

EMPTY_CHAIN = 0
"""The chain of a session before its first event."""


@final
@dataclass(slots=True)
class Head:
    """A session's index head: how far it reaches, its counters there, and that event's chain."""

    indexed_through: int = 0
    counts: Counts = field(default_factory=lambda: [0] * 6)
    chain: int = EMPTY_CHAIN


ChainedFields = tuple[int, str, str, int, str, int, str | None, str | None, int | None, int]
"""An event's fields in the order its chain takes them: its sequence, its time (as
`format_timestamp` writes it), type, version and JSON; its typed columns (kind,
invocation id, label, code) and its effect."""


def chain_of(previous: int, fields: ChainedFields) -> int:
    """The chain after one event: a CRC-32 of the event as stored and of its derived
    columns (``fields``), continuing ``previous``."""
    sequence, recorded_at, type_tag, version, data, kind, invocation, label, code, effect = fields
    # One CRC over the header and the JSON together: the same value as continuing the
    # header's CRC over the JSON (CRC-32 runs on over concatenation), one call cheaper.
    return zlib.crc32(
        f"{sequence}\x1f{recorded_at}\x1f{type_tag}\x1f{version}\x1f{kind}\x1f{invocation}"
        f"\x1f{label}\x1f{code}\x1f{effect}\x1f{data}".encode(),
        previous,
    )


def checkpoint_seal(session_id: str, sequence: int, counts: Counts, chain: int) -> int:
    """A CRC-32 over a checkpoint's own fields: a checkpoint edited by hand no longer matches."""
    return zlib.crc32(f"{session_id}\x1f{sequence}\x1f{list(counts)}\x1f{chain}".encode())


def head_seal(session_id: str, head: Head) -> int:
    """A CRC-32 over a session head's fields (its checkpoint's seal, at its last event)."""
    return checkpoint_seal(session_id, head.indexed_through, head.counts, head.chain)


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
        columns = typed_columns(stored.event)
        sequence = stored.sequence
        kind, invocation, label, code = columns
        chain = chain_of(
            chain,
            (sequence, envelope.recorded_at, envelope.type, envelope.version, envelope.data,
             kind, invocation, label, code, effect),
        )  # fmt: skip
        rows.append(IndexedEvent(sequence, envelope, columns, effect, chain))
        count_delta(running, effect)
        if sequence % interval == 0:
            seal = checkpoint_seal(session_id, sequence, running, chain)
            checkpoints.append(Checkpoint(sequence, tuple(running), chain, seal))
    after = Head(events[-1].sequence if events else head.indexed_through, counts, chain)
    return IndexedGroup(rows, writer.changes(), checkpoints, after)
