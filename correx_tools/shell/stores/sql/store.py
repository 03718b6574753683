"""What the database stores share: one store written once over a `Database`.

`SqlEventStore` reads and writes events, keeps their time-travel index and
answers from it, and rebuilds it; `SQLiteEventStore` and `PostgresEventStore`
add only how their database is opened, laid out and upgraded.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import TYPE_CHECKING, Any

from returns.result import Result

from ....core.lifecycle.events import StoredEvent
from ....core.replay.errors import EventDecodeError
from ....core.tools.ids import SessionId
from ..port import (
    AppendError,
    Fault,
    Reindexed,
    SessionCheck,
    SessionIndex,
    StoreLayoutError,
    StoreReadError,
)
from ..writing import BatchWritingStore
from .catalog_store import CatalogAnswers
from .dialect import Cursor, ReadFault, WriteFault
from .event_reads import read_events
from .index import last_sequence, load_head, mark_stale, marked_fresh
from .laid_out import LaidOutStore
from .reading import SqlSessionIndex
from .said import said_events
from .source_reads import SourceView

# What writes, copies, verifies and rebuilds is imported by the method that does it: a
# command that only reads (``sessions`` of a warm cache, say) never loads it.
if TYPE_CHECKING:
    from .append import WholeSession
    from .parts import Part, Runner
    from .rebuilding import Parted


class SqlEventStore(CatalogAnswers, LaidOutStore, BatchWritingStore):
    """An event store in a SQL database, with its time-travel index (internal base).

    A subclass opens its database and sets, before anything is read:
    ``_database``; ``name`` (how messages name the store); ``read_only``;
    ``layout`` and ``_layout`` (`LaidOutStore`); and ``checkpoint_interval``.
    """

    _read_batch: int = 5_000
    _first_batch: int = 100
    """Rows of a read's first batch: a reader that wants a session's first event (its
    description, for ``sessions``) is not made to fetch thousands."""
    read_only: bool
    checkpoint_interval: int

    def _refuse_writes(self) -> None:
        if self.read_only:
            raise PermissionError(f"{self.name} was opened read-only")

    # -- writing -----------------------------------------------------------------

    def _write_groups(
        self, groups: list[tuple[str, list[StoredEvent]]], *, expected: int | None
    ) -> Result[int, AppendError]:
        self._refuse_writes()
        from .append import write_groups  # noqa: PLC0415 - a write's alone

        return write_groups(
            self._database, groups, expected=expected, interval=self.checkpoint_interval
        )

    def import_events(self, stored_events: Iterable[StoredEvent]) -> Result[int, AppendError]:
        """Copy numbered events as they are, all or none; streamed a run at a time (`runs`)."""
        return self._import(stored_events)

    def _import(
        self, stored_events: Iterable[StoredEvent], first: Callable[[Cursor], None] | None = None
    ) -> Result[int, AppendError]:
        """`import_events`, with ``first`` run in its transaction before anything is written."""
        self._refuse_writes()
        from .append import SourceFailed, runs, write_groups  # noqa: PLC0415 - a write's alone

        try:
            return write_groups(
                self._database,
                runs(stored_events),
                expected=None,
                interval=self.checkpoint_interval,
                first=first,
            )
        except SourceFailed as failed:
            raise failed.error from None  # the source's own error, as a read would raise it

    def import_copies(self, sessions: Iterable[WholeSession]) -> Result[int, AppendError]:
        """Copy whole sessions of another database as `import_events` copies their events,
        all or none, a large one's parts read by worker processes (`copy_parts`)."""
        self._refuse_writes()
        from .append import SourceFailed, write_groups  # noqa: PLC0415 - a write's alone

        try:
            return write_groups(
                self._database, sessions, expected=None, interval=self.checkpoint_interval
            )
        except SourceFailed as failed:
            raise failed.error from None  # the source's own error, as a read would raise it

    def parts_to_copy(
        self, session_id: SessionId, pieces: int, *, batch: int, smallest: int | None = None
    ) -> tuple[type, int, list[Part]] | None:
        """The parts a copy of the session is read in (`copy_parts`), with this store's
        dialect type and layout; ``None`` when it is too small to split, or its index is
        not fresh (a copy then reads it in one pass, as a read would)."""
        if not self._indexed:
            return None
        from .parts import plan  # noqa: PLC0415 - a copy's alone

        extra = {} if smallest is None else {"smallest": smallest}
        try:
            with self._database.snapshot() as cursor:
                self._follow_layout(cursor)
                d = self._database.dialect
                if not marked_fresh(d, cursor, session_id):
                    return None
                parts = plan(
                    d, cursor, session_id, self.checkpoint_interval, pieces, batch=batch, **extra
                )
        except ReadFault as fault:
            raise self._unavailable(fault, 0) from None
        return None if parts is None else (type(d), self.layout, parts)

    def reindex(
        self,
        progress: Callable[[int, int], None] | None = None,
        *,
        accept_edits: bool = False,
        runner: Runner | None = None,
    ) -> Reindexed:
        """Rebuild every session's time-travel index from its events, in one transaction.

        ``progress(done, total)`` is called as events are indexed. A session
        whose events do not hold together (a gap, an event that cannot be
        decoded, an event changed after it was written) keeps the index it had
        and is named in the result's ``damaged``; its events are never changed.
        ``accept_edits`` indexes events changed after they were written as they
        are now (after a deliberate edit, such as a secret taken out): the new
        index then vouches for them. A ``runner`` builds a large session's parts in
        worker processes (`parts`); this process writes them, in the same transaction.
        """
        self._refuse_writes()
        from .rebuild_parts import rebuild_in_parts  # noqa: PLC0415 - a rebuild's alone
        from .rebuilding import rebuild_all  # noqa: PLC0415

        parted: Parted | None = None
        if runner is not None:
            parted = functools.partial(rebuild_in_parts, runner=runner)
        try:
            with self._database.writing() as cursor:
                self._hold_layout(cursor)
                return rebuild_all(
                    self._database.dialect,
                    cursor,
                    self.checkpoint_interval,
                    progress,
                    accept_edits=accept_edits,
                    parted=parted,
                )
        except WriteFault as fault:
            raise self._unwritable(fault) from None

    def _hold_layout(self, cursor: object) -> None:
        """Keep other processes from changing the layout for this transaction (if they could)."""

    def verify_session(
        self, session_id: SessionId, *, runner: Runner | None = None
    ) -> SessionCheck:
        """Check the session's events, and every row of its index against a fresh fold of
        them, in one read snapshot (`verifying`; with a ``runner``, a large session's parts
        in worker processes: `verify_parts`); it writes nothing."""
        if not self._indexed:
            raise StoreLayoutError(
                f"{self.name}: written by an older release and keeps no index to check; "
                f"upgrade it with: correx-tools reindex {self.name}"
            )
        from .verify_parts import verify_in_parts  # noqa: PLC0415 - verify's alone
        from .verifying import verify_session  # noqa: PLC0415

        try:
            with self._database.snapshot() as cursor:
                self._follow_layout(cursor)
                d, interval = self._database.dialect, self.checkpoint_interval
                if runner is not None:
                    checked = verify_in_parts(d, cursor, session_id, interval, runner)
                else:
                    checked = verify_session(d, cursor, session_id, interval)
                if not self.keeps_catalog or not checked.repairable:
                    return checked
                from .catalog_check import catalog_fault  # noqa: PLC0415 - verify's alone

                wrong = catalog_fault(d, cursor, session_id)
        except ReadFault as fault:
            raise self._unavailable(fault, 0) from None
        if wrong is None:
            return checked
        found = Fault(session_id=session_id, sequence=None, in_events=False, message=wrong)
        return replace(checked, faults=(*checked.faults, found))

    def work_part(self, task: str, part: Part) -> Any:
        """One part of a session checked (``task`` ``"verify"``), rebuilt (``"rebuild"``;
        ``"rebuild!"`` accepting edits) or read to be copied (``"copy"``) in one snapshot,
        writing nothing (`parts`)."""
        try:
            with self._database.snapshot() as cursor:
                self._follow_layout(cursor)
                d = self._database.dialect
                if task == "verify":
                    from .verify_parts import check_part  # noqa: PLC0415 - a worker's alone

                    return check_part(d, cursor, part)
                if task == "copy":
                    from .copy_parts import copy_part  # noqa: PLC0415 - a worker's alone

                    return copy_part(d, cursor, part)
                from .rebuild_parts import rebuild_part  # noqa: PLC0415 - a worker's alone

                return rebuild_part(d, cursor, part, accept_edits=task == "rebuild!")
        except ReadFault as fault:
            raise self._unavailable(fault, part.start + 1) from None

    def repair_index(self, session_id: SessionId) -> str | None:
        """Rebuild the session's index from its events, in one transaction of its own:
        ``None`` once rebuilt, or why not (its events are damaged: a gap, an event that
        cannot be read or that changed after it was written; the old index is then left
        as it was)."""
        self._refuse_writes()
        from .rebuilding import DamagedEvents, rebuild  # noqa: PLC0415 - a repair's alone

        d = self._database.dialect
        try:
            with self._database.writing() as cursor:
                d.lock_session(cursor, session_id)
                rebuild(d, cursor, session_id, self.checkpoint_interval)
        except WriteFault as fault:
            raise self._unwritable(fault) from None
        except DamagedEvents as damage:
            return str(damage)
        except StoreReadError as error:
            return str(error.error)
        return None

    def distrust_index(self, session_id: SessionId) -> None:
        """Mark the session's index stale (a query found it not matching its events): a
        writable store rebuilds it before it answers from it again."""
        if self.read_only or not self._indexed:
            return
        with self._database.writing() as cursor:
            mark_stale(self._database.dialect, cursor, session_id)

    # -- reading -----------------------------------------------------------------

    def _unwritable(self, fault: WriteFault) -> StoreLayoutError:
        """A rebuild the database would not carry out (busy too long, gone, or not this
        user's to write), as the error a command says in one line."""
        return StoreLayoutError(fault.message or f"{self.name}: {fault.kind.value}")

    def _unavailable(self, fault: ReadFault, sequence: int) -> StoreReadError:
        return StoreReadError(
            EventDecodeError(
                source=self.name, line=None, message=f"the database is unavailable: {fault.reason}"
            ),
            sequence=sequence,
        )

    def read_decoded(self, session_id: SessionId, *, after: int = 0) -> Iterator[StoredEvent]:
        """The session's events, each decoded in full from its own JSON (never from the typed
        columns beside it): what a copy of the store is made from."""
        return self._read(session_id, after, trust_columns=False)

    def read(self, session_id: SessionId, *, after: int = 0) -> Iterator[StoredEvent]:
        """The session's events after ``after``, in sequence order, read in batches.

        Tool events are built from their typed columns, their payloads decoded
        when first used, while the session's index is fresh, each row checked
        against its chain as it is read; from the first that does not match (and
        for a stale index) every event is decoded in full from its own JSON and
        held to its chain one at a time, and an event changed after it was written
        stops the read with a `StoreReadError` naming it (`event_reads`).
        """
        return self._read(session_id, after, trust_columns=True)

    def read_conversation(
        self, session_id: SessionId, *, after: int = 0, before: int | None = None
    ) -> Iterator[StoredEvent]:
        """The session's conversation events after ``after`` and before ``before`` (`said`),
        alone, each held to its chain."""
        return said_events(
            self._database, session_id, after, self._read_batch, self._unavailable,
            before=before, chained=self._indexed,
        )  # fmt: skip

    def _read(
        self, session_id: SessionId, after: int, *, trust_columns: bool
    ) -> Iterator[StoredEvent]:
        return read_events(
            self._database, session_id, after, chained=self._indexed, columns=trust_columns,
            batches=(self._first_batch, self._read_batch), unavailable=self._unavailable,
        )  # fmt: skip

    @contextmanager
    def session_index(self, session_id: SessionId) -> Iterator[SessionIndex | None]:
        """The session's time-travel index, read in one snapshot; ``None`` where there is none
        to trust (an older layout, or a stale index a read-only store cannot rebuild)."""
        if not self._indexed:
            yield None
            return
        d = self._database.dialect
        try:
            if not self.read_only:
                self._rebuild_if_stale(session_id)
            with self._database.snapshot() as cursor:
                self._follow_layout(cursor)
                fresh = load_head(d, cursor, session_id) is not None
                last = last_sequence(d, cursor, session_id)
                yield SqlSessionIndex(d, cursor, session_id, last) if fresh else None
        except ReadFault as fault:
            raise self._unavailable(fault, 0) from None

    def _rebuild_if_stale(self, session_id: SessionId) -> None:
        """A session's index found stale is rebuilt from the events before it is used."""
        d = self._database.dialect
        with self._database.query() as cursor:
            stale = load_head(d, cursor, session_id) is None
        if stale:
            from .rebuilding import DamagedEvents, rebuild  # noqa: PLC0415 - seldom needed

            try:
                with self._database.writing() as cursor:
                    d.lock_session(cursor, session_id)
                    rebuild(d, cursor, session_id, self.checkpoint_interval)
            except (WriteFault, DamagedEvents, StoreReadError):
                # Not now (the database is busy or gone), or not at all (its events are
                # damaged): it stays stale and unused, and questions fold the events.
                pass

    @contextmanager
    def source_view(self) -> Iterator[SourceView]:
        """The store in one read snapshot, as a push reads what it sends (`source_reads`);
        a store that keeps no catalog, or a database gone, is a `StoreLayoutError`."""
        with self._catalogue() as (d, cursor):
            yield SourceView(d, cursor)

    def sessions(self) -> tuple[SessionId, ...]:
        """Every session with at least one event, sorted."""
        try:
            with self._database.query() as cursor:
                names = self._database.dialect.sessions(cursor)
        except ReadFault as fault:
            raise self._unavailable(fault, 0) from None
        return tuple(SessionId(name) for name in names)

    def last_sequence(self, session_id: SessionId) -> int:
        """The session's last sequence (0 for a session with no events)."""
        try:
            with self._database.query() as cursor:
                return last_sequence(self._database.dialect, cursor, session_id)
        except ReadFault as fault:
            raise self._unavailable(fault, 0) from None

    def count(self) -> int:
        """How many events the store holds, over all sessions."""
        with self._database.query() as cursor:
            sql = self._database.dialect.sql("SELECT COUNT(*) FROM {events}")
            return int(cursor.execute(sql).fetchone()[0])
