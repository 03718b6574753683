"""The embedded default store: one SQLite file.

WAL journal, ``synchronous=FULL`` (a returned append survives a power cut),
``BEGIN IMMEDIATE`` for every write so concurrent writers queue on the lock
instead of failing mid-transaction, and one transaction per append. Invocation
ids are unique across sessions by a ``UNIQUE`` table of their own.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import final

from returns.result import Failure, Result, Success

from ....core.lifecycle.events import REQUESTED_TYPE, StoredEvent
from ....core.tools.ids import SessionId
from ..addresses import StoreAddress
from ..codec.rows import decode_indexed_rows, decode_row, encode_rows
from ..port import AppendError, AppendErrorKind, SessionIndex, StoreLayoutError
from ..sql.indexing import CHECKPOINT_INTERVAL, claimed_columns
from ..writing import BatchWritingStore, check_import_run, conflict, duplicate
from .index import CLAIM as index_CLAIM
from .index import index_and_write as index_index_and_write
from .index import last_sequence as index_last_sequence
from .index import load_head as index_load_head
from .index import rebuild as index_rebuild
from .layout import LAYOUT
from .layout import checkpoint_interval as layout_checkpoint_interval
from .layout import clear_index as layout_clear_index
from .layout import create as layout_create
from .layout import layout_of as layout_layout_of
from .layout import upgrade as layout_upgrade
from .reading import SQLiteSessionIndex

BUSY_TIMEOUT_SECONDS = 30.0
_READ_BATCH = 5_000


@final
class SQLiteEventStore(BatchWritingStore):
    """An `EventStore` in the SQLite file at ``path``.

    The file and its tables are created on first use, with a time-travel index
    kept beside the events (a checkpoint of each session's counters every
    ``checkpoint_interval`` events; see `indexing`). A file written by an
    older release (layout 1) is refused for writing with a message that says
    how to upgrade it, unless ``upgrade=True`` upgrades it in place, in one
    transaction. With ``read_only=True`` nothing is ever written or created:
    the file must exist and hold an event store (a
    `StoreLayoutError` says what it
    holds instead), ``append`` raises ``PermissionError``, and a file of the
    older layout is read as it is (questions about its past are then answered
    by folding). One store object may be shared by threads; processes each
    open their own.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        busy_timeout: float = BUSY_TIMEOUT_SECONDS,
        read_only: bool = False,
        upgrade: bool = False,
        checkpoint_interval: int = CHECKPOINT_INTERVAL,
        progress: Callable[[int, int], None] | None = None,
    ) -> None:
        if type(checkpoint_interval) is not int or checkpoint_interval < 1:
            raise ValueError(
                f"checkpoint_interval must be an int >= 1, got {checkpoint_interval!r}"
            )
        self.path = Path(path)
        self.read_only = read_only
        self._lock = threading.Lock()
        if read_only:
            if not self.path.is_file():
                raise StoreLayoutError(f"{self.path}: no such file")
            # mode=ro: SQLite itself refuses every write, and creates no file.
            self._connection = sqlite3.connect(
                self.path.resolve().as_uri() + "?mode=ro",
                uri=True,
                timeout=busy_timeout,
                isolation_level=None,
                check_same_thread=False,
            )
        else:
            self._connection = sqlite3.connect(
                self.path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
            )
        try:
            self.layout = self._open(upgrade, checkpoint_interval, progress)
            self.checkpoint_interval = (
                checkpoint_interval
                if self.layout < LAYOUT
                else layout_checkpoint_interval(self._connection)
            )
        except BaseException:
            self._connection.close()
            raise

    def _open(
        self, upgrade: bool, interval: int, progress: Callable[[int, int], None] | None
    ) -> int:
        """Check the file's layout; create or upgrade its tables if asked. Its layout then."""
        try:
            layout = layout_layout_of(self._connection)
        except sqlite3.DatabaseError as error:
            raise StoreLayoutError(f"{self.path}: not a SQLite event store ({error})") from None
        if layout is None or (layout == 0 and self.read_only):
            held = "no tables" if layout == 0 else "tables of another kind"
            raise StoreLayoutError(
                f"{self.path}: not a correx event store (it holds {held}); "
                "create one with correx-tools init-db"
            )
        if self.read_only:
            return layout
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA synchronous=FULL")
        if layout < LAYOUT:
            # Decided again inside the write lock: another process may be creating it too.
            with self._lock:
                self._write(lambda cursor: self._prepare(cursor, upgrade, interval, progress))
        return LAYOUT

    def _prepare(
        self,
        cursor: sqlite3.Cursor,
        upgrade: bool,
        interval: int,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        layout = layout_layout_of(cursor)
        if layout == 0:
            layout_create(cursor, interval)
        elif layout is not None and layout < LAYOUT:
            if not upgrade:
                raise StoreLayoutError(
                    f"{self.path}: written by an older release (layout {layout}); upgrade it "
                    f"in place with: correx-tools reindex {self.path}"
                )
            self._reindex(cursor, interval, progress, layout)

    def reindex(self, progress: Callable[[int, int], None] | None = None) -> int:
        """Drop the time-travel index and rebuild it from the events, in one transaction.

        ``progress(done, total)`` is called as events are indexed. Returns how
        many events were indexed.
        """
        if self.read_only:
            raise PermissionError(f"{self.path} was opened read-only")
        with self._lock:
            self._write(
                lambda cursor: self._reindex(cursor, self.checkpoint_interval, progress, LAYOUT)
            )
            return self._count()

    def _reindex(
        self,
        cursor: sqlite3.Cursor,
        interval: int,
        progress: Callable[[int, int], None] | None,
        layout: int,
    ) -> None:
        if layout < LAYOUT:
            layout_upgrade(cursor, interval)
        else:
            layout_clear_index(cursor)
        total = int(cursor.execute("SELECT COUNT(*) FROM events").fetchone()[0])
        done = 0

        def advance(count: int) -> None:
            nonlocal done
            done += count
            if progress is not None:
                progress(done, total)

        for session_id in _session_ids(cursor):
            index_rebuild(cursor, session_id, interval, advance)

    @property
    def address(self) -> StoreAddress:
        """What opens this store again, in another process."""
        return StoreAddress("sqlite", str(self.path))

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._connection.close()

    def _write(self, work: Callable[[sqlite3.Cursor], object]) -> None:
        cursor = self._connection.cursor()
        cursor.execute("BEGIN IMMEDIATE")
        try:
            work(cursor)
        except BaseException:
            cursor.execute("ROLLBACK")
            raise
        cursor.execute("COMMIT")

    def _write_groups(
        self, groups: list[tuple[str, list[StoredEvent]]], *, expected: int | None
    ) -> Result[int, AppendError]:
        if self.read_only:
            raise PermissionError(f"{self.path} was opened read-only")
        encoded = encode_rows(groups, lambda _session, _stored, envelope: envelope)
        if isinstance(encoded, AppendError):
            return Failure(encoded)
        outcome: list[Result[int, AppendError]] = []

        def work(cursor: sqlite3.Cursor) -> None:
            start = 0
            for session_id, events in groups:
                envelopes = encoded[start : start + len(events)]
                start += len(events)
                last = index_last_sequence(cursor, session_id)
                if expected is None:
                    problem = check_import_run(session_id, last, events)
                    if problem is not None:
                        outcome.append(Failure(problem))
                        raise _Abort
                elif last != expected:
                    outcome.append(Failure(conflict(session_id, expected, last)))
                    raise _Abort
                for stored, envelope in zip(events, envelopes, strict=True):
                    if envelope.type != REQUESTED_TYPE:
                        continue
                    invocation = stored.event.invocation_id  # type: ignore[attr-defined]
                    try:
                        cursor.execute(
                            index_CLAIM,
                            (
                                invocation,
                                session_id,
                                stored.sequence,
                                envelope.recorded_at,
                                *claimed_columns(stored.event)[:2],
                            ),
                        )
                    except sqlite3.IntegrityError:
                        row = cursor.execute(
                            "SELECT session_id FROM invocations WHERE invocation_id = ?",
                            (invocation,),
                        ).fetchone()
                        outcome.append(
                            Failure(
                                duplicate(session_id, invocation, row[0] if row else session_id)
                            )
                        )
                        raise _Abort from None
                if events:
                    index_index_and_write(
                        cursor, session_id, events, envelopes, self.checkpoint_interval
                    )
            outcome.append(Success(len(encoded)))

        with self._lock:
            try:
                self._write(work)
            except _Abort:
                pass
            except sqlite3.IntegrityError:
                # Another process committed the same sequence between our read and write.
                session_id = groups[0][0] if groups else ""
                return Failure(conflict(session_id, -1 if expected is None else expected, -1))
            except sqlite3.OperationalError as error:
                if "locked" not in str(error) and "busy" not in str(error):
                    raise
                return Failure(
                    AppendError(
                        kind=AppendErrorKind.BUSY,
                        session_id=groups[0][0] if groups else "",
                        message=f"{self.path}: the database stayed locked by another writer; "
                        f"retry ({error})",
                    )
                )
        return outcome[-1]

    def read(self, session_id: SessionId, *, after: int = 0) -> Iterator[StoredEvent]:
        """The session's events after ``after``, in sequence order, read in batches.

        Tool events are built from their typed columns, their payloads decoded
        when first used, while the session's index is fresh; otherwise (an older
        layout, or events changed outside this store) every event is decoded in
        full.
        """
        last, where = after, str(self.path)
        with self._lock:
            indexed = self.layout >= LAYOUT and self._fresh(session_id)
        query = _READ_INDEXED if indexed else _READ_FULL
        while True:
            # One batch per lock hold: other threads may use the connection in between.
            with self._lock:
                rows = self._connection.execute(query, (session_id, last, _READ_BATCH)).fetchall()
            if indexed:
                yield from decode_indexed_rows(where, session_id, rows)
            else:
                for row in rows:
                    yield decode_row(where, session_id, row)
            if len(rows) < _READ_BATCH:
                return
            last = rows[-1][0]

    def _fresh(self, session_id: str) -> bool:
        row = self._connection.execute(
            "SELECT stale FROM session_heads WHERE session_id = ?", (session_id,)
        ).fetchone()
        return row is not None and not row[0]

    @contextmanager
    def session_index(self, session_id: SessionId) -> Iterator[SessionIndex | None]:
        """The session's time-travel index, read in one snapshot; ``None`` where there is none
        to trust (an older layout read-only, or an index a read-only store cannot rebuild)."""
        if self.layout < LAYOUT:
            yield None
            return
        with self._lock:
            cursor = self._connection.cursor()
            if not self.read_only and not self._fresh_head(cursor, session_id):
                # Detected as stale: rebuilt from the events before it is used.
                self._write(
                    lambda writing: index_rebuild(writing, session_id, self.checkpoint_interval)
                )
            cursor.execute("BEGIN")
            try:
                last = index_last_sequence(cursor, session_id)
                fresh = self._fresh_head(cursor, session_id)
                yield SQLiteSessionIndex(cursor, session_id, last) if fresh else None
            finally:
                cursor.execute("COMMIT")

    def distrust_index(self, session_id: SessionId) -> None:
        """Mark the session's index stale (a query found it not matching its events): a
        writable store rebuilds it before it answers from it again."""
        if self.read_only or self.layout < LAYOUT:
            return
        with self._lock:
            self._write(
                lambda cursor: cursor.execute(
                    "UPDATE session_heads SET stale = 1 WHERE session_id = ?", (session_id,)
                )
            )

    @staticmethod
    def _fresh_head(cursor: sqlite3.Cursor, session_id: str) -> bool:
        return index_load_head(cursor, session_id) is not None

    def sessions(self) -> tuple[SessionId, ...]:
        """Every session with at least one event, sorted."""
        with self._lock:
            return tuple(SessionId(name) for name in _session_ids(self._connection.cursor()))

    def last_sequence(self, session_id: SessionId) -> int:
        """The session's last sequence (0 for a session with no events)."""
        with self._lock:
            return index_last_sequence(self._connection.cursor(), session_id)

    def count(self) -> int:
        """How many events the file holds, over all sessions."""
        with self._lock:
            return self._count()

    def _count(self) -> int:
        return int(self._connection.execute("SELECT COUNT(*) FROM events").fetchone()[0])


_READ_FULL = (
    "SELECT sequence, recorded_at, type, version, data FROM events "
    "WHERE session_id = ? AND sequence > ? ORDER BY sequence LIMIT ?"
)
_READ_INDEXED = (
    "SELECT sequence, recorded_at, type, version, data, kind, invocation_id, label, code "
    "FROM events WHERE session_id = ? AND sequence > ? ORDER BY sequence LIMIT ?"
)


def _session_ids(cursor: sqlite3.Cursor) -> list[str]:
    """Every session id, sorted, one index lookup each (not a scan of every event)."""
    return [
        row[0]
        for row in cursor.execute(
            "WITH RECURSIVE ids(id) AS (SELECT MIN(session_id) FROM events "
            "UNION ALL SELECT (SELECT MIN(session_id) FROM events WHERE session_id > ids.id) "
            "FROM ids WHERE ids.id IS NOT NULL) SELECT id FROM ids WHERE id IS NOT NULL"
        )
    ]


class _Abort(Exception):
    """Rolls a write back after its outcome was recorded."""
