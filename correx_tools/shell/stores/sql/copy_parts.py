"""Importing a large session from another database a part at a time, the parts at once
(`parts`), then written here in one go.

Copying an event is reading it through its chain, encoding it by the rule every
store writes by, and indexing it: each part's own work, done by worker
processes reading the source as a rebuild's are (`rebuild_parts`, whose join
this uses). This process writes the parts in order, in the import's
transaction: the event rows, the rows of the calls as they end (claiming their
ids), the checkpoints and the head — what the one-process import writes.

Only a copy that goes as the one-process import would goes this way. Anything
else — a chain that does not hold, an event the rule refuses, a request the
fold does not take (an id asked for twice), an id another session holds, a
start the parts before it did not make — rolls the session back to a savepoint
and copies it in one pass, which names the fault as it always did. So the
import's answer, and what it writes, never depend on the split.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol, final

from ....core.lifecycle.events import StoredEvent, ToolInvocationRequestedEvent
from ....core.replay.errors import EventDecodeError
from ....core.tools.ids import SessionId
from ..codec.encoding import EncodedEvent
from ..codec.rows import decode_written_row, encode_rows
from ..port import AppendError, StoreReadError
from ..writing import Refused
from . import chains
from .append import Group, event_rows, insert_events, runs
from .chains import ChainBroken, checked_rows
from .dialect import Cursor, Dialect
from .index import write_images
from .indexing import IndexedGroup, index_group
from .parts import Outside, Part, Runner
from .rebuild_parts import Fallback, PartBuild, PartDamaged, RebuiltPart, join_parts
from .rebuilding import DamagedEvents


def copy_part(d: Dialect, cursor: Cursor, part: Part) -> RebuiltPart:
    """What copying one part would write (its event rows whole, ready to insert), read
    in the caller's snapshot of the source; its ``damage`` says where it could not go on."""
    outside = Outside(d, cursor, part, ended_long_ago=False)
    copy = _Copy(d, cursor, part, outside, accept_edits=False)
    damage: tuple[int, str] | None = None
    try:
        copy.run()
    except PartDamaged as found:
        damage = (found.sequence, found.message)
    except (StoreReadError, EventDecodeError, ValueError) as error:
        # An event not read as a store reads it: the one-process import says what it is.
        damage = (copy.head.indexed_through + 1, str(error))
    return RebuiltPart(copy.batches, copy.open, copy.foreign, outside.assumed, copy.head, damage)


class _Copy(PartBuild):
    """One part's copy, read, encoded and indexed but not written."""

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.chain = self.part.previous  # the stored chain the part's first event continues

    def _indexed(self, after: int, limit: int) -> tuple[IndexedGroup, list[tuple[Any, ...]]]:
        d, session_id = self.d, self.part.session_id
        rows = chains.events(d, self.cursor, session_id, after, limit, indexed=True)
        if len(rows) < limit:
            raise PartDamaged(after + len(rows) + 1, "the event is missing")
        try:
            checked = list(checked_rows(d, rows, after, self.chain))
        except ChainBroken as broken:
            raise PartDamaged(broken.sequence, str(broken)) from None
        session = SessionId(session_id)
        events = [decode_written_row(d.where, session, row[:5]) for row in checked]
        encoded = encode_rows([(session_id, events)], _as_encoded)
        if isinstance(encoded, AppendError):
            raise PartDamaged(after + 1, encoded.message)
        group = index_group(
            session_id, events, encoded, head=self.head, lookup=self.lookup,
            interval=self.part.interval,
        )  # fmt: skip
        asked = sum(isinstance(s.event, ToolInvocationRequestedEvent) for s in events)
        if asked != sum(change.kind == 1 for change in group.changes):
            # A request the fold refused (an id asked for again): the one-process import
            # names it, so the session is copied that way.
            raise PartDamaged(after + 1, "a request the index does not take")
        self.chain = rows[-1][-1]
        return group, event_rows(d, d.session_key(session_id), events, group)


def _as_encoded(_session: str, _stored: StoredEvent, encoded: EncodedEvent) -> EncodedEvent:
    return encoded


class CopySource(Protocol):
    """A database store a session is copied from in parts (`SqlEventStore`)."""

    def parts_to_copy(
        self, session_id: SessionId, pieces: int, *, batch: int, smallest: int | None
    ) -> tuple[type, int, list[Part]] | None:
        """Its dialect's type, layout and the session's parts (`None`: not to be split)."""
        ...

    def work_part(self, task: str, part: Part) -> Any:
        """One part worked here, in a snapshot of its own."""
        ...

    def read_decoded(self, session_id: SessionId, *, after: int = 0) -> Iterator[StoredEvent]:
        """The session's events, each decoded from its own JSON."""
        ...


@final
@dataclass
class CopiedSession:
    """One session of ``source`` written whole by an import (`append.WholeSession`), its
    parts read by ``runner``; or, where it cannot be, copied as its events."""

    source: CopySource
    session_id: SessionId
    runner: Runner
    layout: int
    """The layout of the store written to: a copy in parts writes rows by its rules."""
    progress: Callable[[int], None] = field(default=lambda _events: None)
    """Told each count of events copied."""
    batch: int = 5_000
    smallest: int | None = None
    copied: int = field(default=0, init=False)
    """The events copied, once written."""

    def write(self, d: Dialect, cursor: Cursor, interval: int) -> int | None:
        """The session copied in parts, in the caller's transaction; ``None`` when it was
        not (nothing of it written)."""
        found = self.source.parts_to_copy(
            self.session_id, 4 * self.runner.workers, batch=self.batch, smallest=self.smallest
        )
        if found is None:
            return None
        dialect, layout, parts = found
        if dialect is not type(d) or layout != self.layout or parts[0].interval != interval:
            return None  # rows made by another database's or layout's rules, or checkpoints
        session_id, source = self.session_id, self.source

        def here(part: Part) -> RebuiltPart:
            return source.work_part("copy", part)  # type: ignore[no-any-return]

        cursor.execute("SAVEPOINT correx_copy")
        counted = [0]
        try:
            if d.lock_session(cursor, session_id) != 0:
                raise Fallback  # the session goes on from events already here
            results = self.runner.stream("copy", parts, here)
            try:
                head = join_parts(
                    d, cursor, session_id, zip(parts, results, strict=True), counted,
                    write_rows=lambda rows: self._write_rows(d, cursor, rows),
                    write_ended=lambda images: write_images(d, cursor, session_id, images, ()),
                )  # fmt: skip
            finally:
                getattr(results, "close", lambda: None)()  # the parts not needed, dropped
        except (Fallback, Refused, DamagedEvents, StoreReadError):
            cursor.execute("ROLLBACK TO SAVEPOINT correx_copy")
            cursor.execute("RELEASE SAVEPOINT correx_copy")
            self.progress(-self.copied)  # told of rows no longer written
            self.copied = 0
            return None
        cursor.execute("RELEASE SAVEPOINT correx_copy")
        d.advance_session(cursor, session_id, head.indexed_through)
        return self.copied

    def _write_rows(self, d: Dialect, cursor: Cursor, rows: list[tuple[Any, ...]]) -> None:
        insert_events(d, cursor, rows)
        self.copied += len(rows)
        self.progress(len(rows))

    def groups(self) -> Iterable[Group]:
        """The session's events read in one pass, a group at a time."""
        return runs(self._counted(self.source.read_decoded(self.session_id)))

    def _counted(self, events: Iterable[StoredEvent]) -> Iterator[StoredEvent]:
        told = self.copied
        try:
            for stored in events:
                self.copied += 1
                if self.copied - told == _TOLD_EVERY:
                    self.progress(_TOLD_EVERY)
                    told = self.copied
                yield stored
        finally:
            self.progress(self.copied - told)


_TOLD_EVERY = 2_000
"""Events between two reports of progress in a copy read in one pass."""


def copy_sessions(
    source: CopySource,
    sessions: Sequence[SessionId],
    runner: Runner,
    layout: int,
    progress: Callable[[int], None],
) -> list[CopiedSession]:
    """Each session of ``source`` to import, as `append.write_groups` takes it."""
    return [CopiedSession(source, session, runner, layout, progress) for session in sessions]
