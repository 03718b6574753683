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
from pathlib import Path
from typing import final

from returns.result import Failure, Result, Success

from ...core.lifecycle.events import StoredEvent
from ...core.tools.ids import SessionId
from .addresses import StoreAddress
from .port import AppendError, AppendErrorKind, StoreLayoutError
from .rows import decode_row, encode_rows
from .writing import BatchWritingStore, check_import_run, conflict, duplicate, requested_ids

SCHEMA = """
CREATE TABLE IF NOT EXISTS events (
    position    INTEGER PRIMARY KEY AUTOINCREMENT,
    session_id  TEXT    NOT NULL,
    sequence    INTEGER NOT NULL CHECK (sequence >= 1),
    recorded_at TEXT    NOT NULL,
    type        TEXT    NOT NULL,
    version     INTEGER NOT NULL,
    data        TEXT    NOT NULL,
    UNIQUE (session_id, sequence)
);
CREATE TABLE IF NOT EXISTS invocations (
    invocation_id TEXT    PRIMARY KEY,
    session_id    TEXT    NOT NULL,
    sequence      INTEGER NOT NULL
);
"""

BUSY_TIMEOUT_SECONDS = 30.0
_READ_BATCH = 5_000


@final
class SQLiteEventStore(BatchWritingStore):
    """An :class:`~correx_tools.shell.stores.port.EventStore` in the SQLite file at ``path``.

    The file and its tables are created on first use. With ``read_only=True``
    nothing is ever written or created: the file must exist and hold an
    event store (a :class:`~correx_tools.shell.stores.port.StoreLayoutError` says
    what it holds instead), and ``append`` raises ``PermissionError``. One
    store object may be shared by threads; processes each open their own.
    """

    def __init__(
        self,
        path: str | Path,
        *,
        busy_timeout: float = BUSY_TIMEOUT_SECONDS,
        read_only: bool = False,
    ) -> None:
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
            try:
                self._check_layout()
            except BaseException:
                self._connection.close()
                raise
            return
        self._connection = sqlite3.connect(
            self.path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
        )
        self._connection.execute("PRAGMA journal_mode=WAL")
        self._connection.execute("PRAGMA synchronous=FULL")
        with self._lock:
            self._write(_create_tables)

    def _check_layout(self) -> None:
        """Refuse a file that is not an event store, without writing anything."""
        try:
            tables = {
                row[0]
                for row in self._connection.execute(
                    "SELECT name FROM sqlite_master WHERE type = 'table'"
                )
            }
        except sqlite3.DatabaseError as error:
            raise StoreLayoutError(f"{self.path}: not a SQLite event store ({error})") from None
        if not {"events", "invocations"} <= tables:
            held = ", ".join(sorted(tables)[:5]) or "no tables"
            raise StoreLayoutError(
                f"{self.path}: not a correx event store (it holds {held}); "
                "create one with correx-tools init-db"
            )

    @property
    def address(self) -> StoreAddress:
        """What opens this store again, in another process."""
        return StoreAddress("sqlite", str(self.path))

    def close(self) -> None:
        """Close the connection."""
        with self._lock:
            self._connection.close()

    def _write(self, work: Callable[[sqlite3.Cursor], None]) -> None:
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
        encoded = encode_rows(
            groups,
            lambda session_id, stored, encoded: (
                session_id,
                stored.sequence,
                encoded.recorded_at,
                encoded.type,
                encoded.version,
                encoded.data,
            ),
        )
        if isinstance(encoded, AppendError):
            return Failure(encoded)
        outcome: list[Result[int, AppendError]] = []

        def work(cursor: sqlite3.Cursor) -> None:
            for session_id, events in groups:
                last = self._last_sequence(cursor, session_id)
                if expected is None:
                    problem = check_import_run(session_id, last, events)
                    if problem is not None:
                        outcome.append(Failure(problem))
                        raise _Abort
                elif last != expected:
                    outcome.append(Failure(conflict(session_id, expected, last)))
                    raise _Abort
                for invocation, stored in requested_ids(events):
                    try:
                        cursor.execute(
                            "INSERT INTO invocations (invocation_id, session_id, sequence) "
                            "VALUES (?, ?, ?)",
                            (invocation, session_id, stored.sequence),
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
            cursor.executemany(
                "INSERT INTO events (session_id, sequence, recorded_at, type, version, data) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                encoded,
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

    @staticmethod
    def _last_sequence(cursor: sqlite3.Cursor, session_id: str) -> int:
        row = cursor.execute(
            "SELECT MAX(sequence) FROM events WHERE session_id = ?", (session_id,)
        ).fetchone()
        return int(row[0]) if row and row[0] is not None else 0

    def read(self, session_id: SessionId, *, after: int = 0) -> Iterator[StoredEvent]:
        """The session's events after ``after``, in sequence order, read in batches."""
        last, where = after, str(self.path)
        while True:
            # One batch per lock hold: other threads may use the connection in between.
            with self._lock:
                rows = self._connection.execute(
                    "SELECT sequence, recorded_at, type, version, data FROM events "
                    "WHERE session_id = ? AND sequence > ? ORDER BY sequence LIMIT ?",
                    (session_id, last, _READ_BATCH),
                ).fetchall()
            for row in rows:
                yield decode_row(where, session_id, row)
            if len(rows) < _READ_BATCH:
                return
            last = rows[-1][0]

    def sessions(self) -> tuple[SessionId, ...]:
        """Every session with at least one event, sorted."""
        with self._lock:
            rows = self._connection.execute(
                "SELECT DISTINCT session_id FROM events ORDER BY session_id"
            ).fetchall()
        return tuple(SessionId(row[0]) for row in rows)

    def last_sequence(self, session_id: SessionId) -> int:
        """The session's last sequence (0 for a session with no events)."""
        with self._lock:
            return self._last_sequence(self._connection.cursor(), session_id)

    def count(self) -> int:
        """How many events the file holds, over all sessions."""
        with self._lock:
            return int(self._connection.execute("SELECT COUNT(*) FROM events").fetchone()[0])


class _Abort(Exception):
    """Rolls a write back after its outcome was recorded."""


def _create_tables(cursor: sqlite3.Cursor) -> None:
    # executescript would commit our BEGIN IMMEDIATE; run the statements one by one.
    for statement in SCHEMA.split(";"):
        if statement.strip():
            cursor.execute(statement)
