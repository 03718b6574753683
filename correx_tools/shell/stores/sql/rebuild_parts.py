"""Rebuilding a database session's index a part at a time, the parts at once (`parts`),
then written here in one go.

A worker reads its part's events and builds what the one-process rebuild
(`rebuilding.rebuild`) would write for them, batch by batch — the event rows
whose index columns change, the invocation rows that end, the checkpoints —
and writes nothing. This process joins the parts in order, holding each to
what the parts before it made (a part that took another start sends the
session back to the one-process rebuild), and writes each batch as the
one-process rebuild would, in the caller's transaction: a duplicate id, a gap
or an event that cannot be read stops it at the same place, with the same
message. Nothing is written until every part is in, so a run given up (a
worker killed) leaves the index as it was.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any, final

from ....core.replay.errors import EventDecodeError
from ....core.replay.stored_index import STATUS_CODES, STATUS_OF_CODE
from ....core.replay.stored_index import InvocationState as State
from ....core.tools.ids import SessionId
from ..codec.encoding import EncodedEvent
from ..codec.envelope import format_timestamp
from ..codec.rows import decode_row, decode_written_row
from ..port import StoreReadError
from . import chains
from .chains import CHAINED_COLUMNS, continues
from .dialect import Cursor, Dialect
from .images import Image
from .index import move_images, save_head, states, write_checkpoints
from .indexing import Checkpoint, Head, IndexedGroup, index_group
from .parts import Assumed, Outside, Part, Runner, held, plan, shipped
from .rebuilding import (
    CHANGED,
    REBUILD_BATCH,
    DamagedEvents,
    as_stored,
    index_columns,
    rebuild,
    update_event_columns,
    write_rebuilt,
)

Batch = tuple[list[tuple[Any, ...]], list[Image], list[Checkpoint], int]
"""What one batch writes: the event rows whose index columns change, the invocation rows
that end in it (of those requested in the part), its checkpoints, and its events' count."""


@final
@dataclass(frozen=True, slots=True)
class RebuiltPart:
    """What rebuilding one part would write, as a worker sends it back."""

    batches: list[Batch]
    open: dict[str, Image]
    foreign: list[tuple[int, Any, Any, EncodedEvent, int]]
    """Changes to invocations requested before the part, each with its batch (and its
    event's columns, the event as stored and its chain)."""
    assumed: dict[str, Assumed]
    head: Head
    damage: tuple[int, str] | tuple[EventDecodeError, int] | None
    """What stopped it: ``(sequence, message)`` of a `DamagedEvents`, or the error and
    sequence of a `StoreReadError`."""


def rebuild_part(d: Dialect, cursor: Cursor, part: Part, *, accept_edits: bool) -> RebuiltPart:
    """What rebuilding one part would write, read in the caller's snapshot."""
    outside = Outside(d, cursor, part, ended_long_ago=False)
    build = PartBuild(d, cursor, part, outside, accept_edits=accept_edits)
    damage: tuple[int, str] | tuple[EventDecodeError, int] | None = None
    try:
        build.run()
    except PartDamaged as found:
        damage = (found.sequence, found.message)
    except StoreReadError as error:
        damage = (error.error, error.sequence)
    return RebuiltPart(
        build.batches, build.open, build.foreign, outside.assumed, build.head, damage
    )


class PartDamaged(Exception):
    """What stops a part where it would stop the one-process pass: its sequence and why."""

    def __init__(self, sequence: int, message: str) -> None:
        super().__init__(message)
        self.sequence, self.message = sequence, message


class PartBuild:
    """One part's rebuild, read and built but not written (`_indexed` reads and indexes a
    batch; `copy_parts` reads it another way)."""

    def __init__(
        self, d: Dialect, cursor: Cursor, part: Part, outside: Outside, *, accept_edits: bool
    ) -> None:
        self.d, self.cursor, self.part, self.outside = d, cursor, part, outside
        self.accept_edits = accept_edits
        self.head = Head(part.start, list(part.counts), part.chain)
        self.open: dict[str, Image] = {}
        self.ended: dict[str, tuple[int, datetime]] = {}
        self.batches: list[Batch] = []
        self.foreign: list[tuple[int, Any, Any, EncodedEvent, int]] = []

    def lookup(self, ids: Iterable[str]) -> dict[str, State]:
        wanted = list(ids)
        session = self.part.session_id
        found = states(self.open, session)(wanted)
        for invocation in wanted:
            if invocation not in found and invocation in self.ended:
                status, at = self.ended[invocation]
                found[invocation] = State(session, STATUS_OF_CODE[status], at)
        return found | self.outside.states([i for i in wanted if i not in found])

    def run(self) -> None:
        after = self.part.start
        while (limit := min(self.part.batch, self.part.end - after)) > 0:
            group, written = self._indexed(after, limit)
            self._take(group, written)
            self.head, after = group.head, group.events[-1].sequence

    def _indexed(self, after: int, limit: int) -> tuple[IndexedGroup, list[tuple[Any, ...]]]:
        """One batch of the part indexed, and its event rows whose index columns change."""
        d, part = self.d, self.part
        session_id = part.session_id
        session = SessionId(session_id)
        rows = self.cursor.execute(
            d.sql(
                f"SELECT position, {CHAINED_COLUMNS} FROM {{events}} WHERE {{session}} = ? "
                "AND sequence > ? AND sequence <= ? ORDER BY sequence LIMIT ?"
            ),
            (d.session_key(session_id), after, part.end, limit),
        ).fetchall()
        self._gaps(rows, after, limit)
        events = [decode_written_row(d.where, session, row[1:6]) for row in rows]
        encoded = [
            EncodedEvent(t, v, data, at if isinstance(at, str) else format_timestamp(at))
            for _, _, at, t, v, data, *_ in rows
        ]
        group = index_group(
            session_id, events, encoded, head=self.head, lookup=self.lookup,
            interval=part.interval,
        )  # fmt: skip
        self._changed(group.events, rows)
        changed = [
            (*index_columns(d, indexed), row[0])
            for indexed, row in zip(group.events, rows, strict=True)
            if (indexed.columns, indexed.effect, indexed.chain) != as_stored(d, row)
        ]
        return group, changed

    def _take(self, group: IndexedGroup, written: list[tuple[Any, ...]]) -> None:
        """A batch's invocation rows moved on: those it requested kept (until they end, then
        sent back), those requested before the part noted as changes to send back."""
        own, new = [], set()
        first = group.events[0].sequence
        for change in group.changes:
            invocation = change.invocation_id
            if change.kind == 1:
                new.add(invocation)
            elif invocation not in new and invocation not in self.open:
                event = group.events[change.sequence - first]
                moved = (shipped(change), event.columns, event.encoded, event.chain)
                self.foreign.append((len(self.batches), *moved))
                self.outside.moved(change)
                continue
            own.append(change)
        made, _ = move_images(own, group.events, self.open)
        self.open.update(made)
        ended = [image for image in self.open.values() if image.ended_seq is not None]
        for image in ended:
            del self.open[image.invocation_id]
            self.ended[image.invocation_id] = (image.status, image.requested_at)
        self.batches.append((written, ended, group.checkpoints, len(group.events)))

    def _gaps(self, rows: list[Any], after: int, limit: int) -> None:
        for expected, row in enumerate(rows, start=after + 1):
            if row[1] != expected:
                raise PartDamaged(expected, _gap(row[1]))
        if len(rows) < limit:
            missing = after + len(rows) + 1
            found = self.cursor.execute(
                self.d.sql(
                    "SELECT MIN(sequence) FROM {events} WHERE {session} = ? AND sequence > ?"
                ),
                (self.d.session_key(self.part.session_id), missing),
            ).fetchone()
            raise PartDamaged(missing, _gap(found[0]))

    def _changed(self, indexed_events: list[Any], rows: list[Any]) -> None:
        """As the one-process rebuild: an event whose chain goes on from what was written
        was changed since, and is not built over unless edits are accepted."""
        d, session = self.d, SessionId(self.part.session_id)
        for index, (indexed, row) in enumerate(zip(indexed_events, rows, strict=True)):
            if indexed.chain == row[11]:
                continue
            decode_row(d.where, session, row[1:6])
            following = rows[index + 1][1:] if index + 1 < len(rows) else None
            if following is None:
                after_it = chains.events(d, self.cursor, session, row[1], 1, indexed=True)
                following = after_it[0] if after_it else None
            changed = row[11] is not None and following and continues(d, row[11], following)
            if changed and not self.accept_edits:
                raise PartDamaged(row[1], CHANGED)


def _gap(next_stored: object) -> str:
    return (
        f"the event is missing (the next one stored is {next_stored}); no index is built over a gap"
    )


class Fallback(Exception):
    """A part took a start the parts before it did not make."""


def rebuild_in_parts(
    d: Dialect,
    cursor: Cursor,
    session_id: str,
    interval: int,
    progress: Callable[[int], None] | None = None,
    *,
    runner: Runner,
    accept_edits: bool = False,
    batch: int = REBUILD_BATCH,
    smallest: int | None = None,
) -> Head:
    """Index one session again as `rebuilding.rebuild` does, in the caller's transaction,
    its parts built by ``runner``; a session too small to split is rebuilt here, whole."""
    extra = {} if smallest is None else {"smallest": smallest}
    parts = plan(d, cursor, session_id, interval, 4 * runner.workers, batch=batch, **extra)
    if parts is not None:

        def here(part: Part) -> RebuiltPart:
            return rebuild_part(d, cursor, part, accept_edits=accept_edits)

        # Streamed: each part is written as it comes, so only a few parts' rows are held.
        results = runner.stream("rebuild!" if accept_edits else "rebuild", parts, here)
        counted = [0]
        cursor.execute("SAVEPOINT correx_parts")
        try:
            try:
                head = _write(d, cursor, session_id, zip(parts, results, strict=True), counted)
            finally:
                getattr(results, "close", lambda: None)()  # the parts not needed, dropped
        except Fallback:
            cursor.execute("ROLLBACK TO SAVEPOINT correx_parts")
        except (DamagedEvents, StoreReadError):
            if progress is not None:
                progress(counted[0])  # the batches written before it, as `rebuild` tells
            raise
        else:
            cursor.execute("RELEASE SAVEPOINT correx_parts")
            if progress is not None:
                progress(counted[0])
            return head
        cursor.execute("RELEASE SAVEPOINT correx_parts")
    return rebuild(
        d, cursor, session_id, interval, progress, accept_edits=accept_edits, batch=batch
    )


def _write(
    d: Dialect,
    cursor: Cursor,
    session_id: str,
    worked: Iterable[tuple[Part, RebuiltPart]],
    counted: list[int],
) -> Head:
    key = d.session_key(session_id)
    for table in ("checkpoints", "heads", "invocations"):
        cursor.execute(d.sql(f"DELETE FROM {{{table}}} WHERE {{session}} = ?"), (key,))
    return join_parts(
        d, cursor, session_id, worked, counted,
        write_rows=lambda changed: update_event_columns(d, cursor, changed),
        write_ended=lambda images: write_rebuilt(d, cursor, session_id, images),
    )  # fmt: skip


def join_parts(
    d: Dialect,
    cursor: Cursor,
    session_id: str,
    worked: Iterable[tuple[Part, RebuiltPart]],
    counted: list[int],
    *,
    write_rows: Callable[[list[tuple[Any, ...]]], None],
    write_ended: Callable[[list[Image]], None],
) -> Head:
    """The parts written in order, each batch's event rows by ``write_rows`` and the rows
    of the invocations that ended in it by ``write_ended`` (those still open at the end
    too); `Fallback` at a part that took a start the parts before it did not make, the
    part's damage raised where it stopped. ``counted[0]``: the events written."""
    head = Head()
    images: dict[str, Image] = {}
    ended: dict[str, tuple[int, datetime]] = {}

    def truth(invocation: str) -> Assumed:
        image = images.get(invocation)
        if image is not None:
            return image.status, image.requested_at
        return ended.get(invocation)

    for part, result in worked:
        if (head.indexed_through, list(head.counts), head.chain) != (
            part.start,
            list(part.counts),
            part.chain,
        ) or not held(result.assumed, truth):
            raise Fallback
        foreign = iter(result.foreign)
        pending = next(foreign, None)
        for number, (rows, own_ended, checkpoints, count) in enumerate(result.batches):
            while pending is not None and pending[0] == number:
                _, change, columns, encoded, chain = pending
                images[change.invocation_id].advance(
                    change, STATUS_CODES[change.status], columns, encoded, chain
                )
                pending = next(foreign, None)
            write_rows(rows)
            done = [image for image in images.values() if image.ended_seq is not None]
            write_ended([*done, *own_ended])
            for image in [*done, *own_ended]:
                images.pop(image.invocation_id, None)
                ended[image.invocation_id] = (image.status, image.requested_at)
            write_checkpoints(d, cursor, session_id, checkpoints)
            counted[0] += count
        if result.damage is not None:
            if isinstance(result.damage[0], EventDecodeError):
                error, sequence = result.damage
                assert isinstance(sequence, int)
                raise StoreReadError(error, sequence=sequence)
            sequence, message = result.damage
            assert isinstance(sequence, int)
            assert isinstance(message, str)
            raise DamagedEvents(session_id, sequence, message)
        images.update(result.open)
        head = result.head
    write_ended(list(images.values()))
    save_head(d, cursor, session_id, head)
    from .catalog import refill_catalog  # noqa: PLC0415 - loaded when a store is written

    refill_catalog(d, cursor, session_id, head)
    return head
