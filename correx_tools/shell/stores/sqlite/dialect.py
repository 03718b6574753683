"""SQLite's spelling of the SQL engine, and its connection.

Ids, labels and times are kept as text; a session is looked up by its id.
A write holds the whole database (``BEGIN IMMEDIATE``), so holding a session
needs nothing more, and writers queue on the lock instead of failing
mid-transaction.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime
from pathlib import Path
from typing import Any, final

from ..codec.envelope import format_timestamp
from ..port import AppendErrorKind, StoreLayoutError
from ..sql.dialect import Cursor, SearchIndex, WriteFault
from ..sql.index import last_sequence
from ..sql.layout import LAYOUT
from .search import SQLiteSearch

IDS_PER_QUERY = 500
"""Ids asked for in one ``IN (...)`` list: well within SQLite's limit on host parameters."""

_NAMES = {
    "events": "events",
    "invocations": "invocations",
    "heads": "session_heads",
    "checkpoints": "checkpoints",
    "settings": "store_settings",
    "catalog": "session_catalog",
    "models": "session_models",
    "spent": "session_spent",
    "activity": "session_activity",
    "search_runs": "search_runs",
    "session": "session_id",
    "invocation": "invocation_id",
    # The layout's words (`correx_tools.shell.stores.sql.layout`):
    "key": "TEXT",
    "id": "TEXT",
    "time": "TEXT",
    "small": "INTEGER",
    "big": "INTEGER",
    "bool": "INTEGER",
    "false": "0",
    "without_rowid": " WITHOUT ROWID",
    "index_prefix": "",
}


@final
class SQLiteDialect:
    """The engine's SQL as SQLite spells it; every value as text."""

    layout = LAYOUT
    texts_as_bytes = False
    keys_are_ids = True
    claim_columns = "invocation_id"

    def __init__(self, path: Path) -> None:
        self.where = str(path)
        self._spelled: dict[str, str] = {}
        self._last_time: tuple[object, str] = (None, "")
        self.search: SearchIndex = SQLiteSearch()

    def sql(self, text: str) -> str:
        """The engine's SQL with SQLite's table and column names."""
        spelled = self._spelled.get(text)
        if spelled is None:
            spelled = self._spelled[text] = text.format(**_NAMES)
        return spelled

    @staticmethod
    def session_key(session_id: str) -> object:
        """A session is looked up by its id."""
        return session_id

    @staticmethod
    def invocation_key(invocation_id: str) -> object:
        """An invocation is looked up by its id."""
        return invocation_id

    @staticmethod
    def text_value(text: str | None) -> object:
        """Text as it is."""
        return text

    @staticmethod
    def text(value: Any) -> str | None:
        """Text as it is."""
        return value  # type: ignore[no-any-return]

    def time_value(self, moment: datetime, formatted: str | None = None) -> object:
        """The time as `format_timestamp` writes it (the events of a batch share one)."""
        if formatted is not None:
            return formatted
        last, text = self._last_time
        if moment is not last:
            text = format_timestamp(moment)
            self._last_time = (moment, text)
        return text

    when = staticmethod(datetime.fromisoformat)

    @staticmethod
    def unindexed(column: str) -> str:
        """SQLite's unary ``+``: the column's indexes are not used for this test."""
        return "+" + column

    @staticmethod
    def contains(column: str) -> str:
        """``instr``: where the text is found in the column's, from 1."""
        return f"instr({column}, ?) > 0"

    @staticmethod
    def key_sets(keys: Sequence[object]) -> Iterator[tuple[str, tuple[object, ...]]]:
        """``IN (?, ...)`` lists of at most `IDS_PER_QUERY` keys."""
        for start in range(0, len(keys), IDS_PER_QUERY):
            chunk = tuple(keys[start : start + IDS_PER_QUERY])
            yield f"IN ({', '.join('?' * len(chunk))})", chunk

    @staticmethod
    def claim_ids(invocation_id: str) -> tuple[object, ...]:
        """The id itself is the key."""
        return (invocation_id,)

    @staticmethod
    def sessions(cursor: Cursor) -> list[str]:
        """Every session id, sorted, one index lookup each (not a scan of every event)."""
        return [
            row[0]
            for row in cursor.execute(
                "WITH RECURSIVE ids(id) AS (SELECT MIN(session_id) FROM events "
                "UNION ALL SELECT (SELECT MIN(session_id) FROM events WHERE session_id > ids.id) "
                "FROM ids WHERE ids.id IS NOT NULL) SELECT id FROM ids WHERE id IS NOT NULL"
            )
        ]

    @staticmethod
    def has_index(cursor: Cursor, name: str) -> bool:
        """Asked of the file's schema table."""
        found = "SELECT 1 FROM sqlite_master WHERE type = 'index' AND name = ?"
        return cursor.execute(found, (name,)).fetchone() is not None

    @staticmethod
    def session_name(cursor: Cursor, key: object) -> str:
        """The key is the id."""
        return str(key)

    def lock_session(self, cursor: Cursor, session_id: str) -> int:
        """The write transaction holds the whole database already: the last sequence."""
        return last_sequence(self, cursor, session_id)

    def advance_session(self, cursor: Cursor, session_id: str, last: int) -> None:
        """Nothing to do: a session's last sequence is read from its events."""

    def after_write(self, cursor: Cursor, session_ids: Iterable[str]) -> None:
        """Nothing to do: readers of a file look again."""


@final
class SQLiteDatabase:
    """One SQLite connection shared by the store's threads, one call at a time.

    Opened for reading (`reading`), it writes nothing and creates nothing beside
    the file: while no writer holds the file (no write-ahead log or rollback
    journal beside it) it is opened *immutable*, so SQLite neither locks it nor
    makes its shared-memory file; as soon as a writer appears (its log does), the
    connection is opened again read-only on the writer's log, so what the writer
    commits is seen and never a half-written page.
    """

    def __init__(
        self, connection: sqlite3.Connection, path: Path, *, reader_timeout: float | None = None
    ) -> None:
        self._dialect = SQLiteDialect(path)
        self.connection = connection
        # Re-entrant: a read inside a snapshot (a view that falls back to folding) runs
        # in the snapshot's own transaction, on the same thread.
        self.lock = threading.RLock()
        self._path = path
        self._reader_timeout = reader_timeout
        self._immutable = False
        self._seen: tuple[int, int, int] | None = None

    @classmethod
    def reading(cls, path: Path, timeout: float) -> SQLiteDatabase:
        """The file opened to read only (see the class's docstring)."""
        database = cls(_read_only_connection(path, timeout, immutable=True), path,
                       reader_timeout=timeout)  # fmt: skip
        database._reopen()
        return database

    def _reopen(self) -> None:
        """Open the connection again, as the file is held now (reading only)."""
        assert self._reader_timeout is not None
        self.connection.close()
        self._seen = _looks(self._path)
        self._immutable = not _writer_beside(self._path)
        self.connection = _read_only_connection(
            self._path, self._reader_timeout, immutable=self._immutable
        )

    def _fresh(self) -> None:
        """Before each read, a reader opened immutable looks at the file (two ``stat``): a
        writer beside it, or a file changed since (a writer came and went), opens it again."""
        if (
            self._immutable
            and not self.connection.in_transaction
            and (_writer_beside(self._path) or _looks(self._path) != self._seen)
        ):
            self._reopen()

    @property
    def dialect(self) -> SQLiteDialect:
        """SQLite's spelling."""
        return self._dialect

    @contextmanager
    def writing(self) -> Iterator[sqlite3.Cursor]:
        """``BEGIN IMMEDIATE`` ... ``COMMIT``; a database locked too long is a BUSY fault."""
        with self.lock:
            cursor = self.connection.cursor()
            try:
                cursor.execute("BEGIN IMMEDIATE")
                try:
                    yield cursor
                except BaseException:
                    # SQLite may have rolled back already (a full disk does): no second one.
                    if self.connection.in_transaction:
                        cursor.execute("ROLLBACK")
                    raise
                cursor.execute("COMMIT")
            except sqlite3.IntegrityError:
                raise WriteFault(AppendErrorKind.CONFLICT, "") from None
            except sqlite3.OperationalError as error:
                if "readonly" in str(error):
                    raise WriteFault(
                        AppendErrorKind.UNAVAILABLE,
                        f"{self._path}: cannot be written by this user ({error})",
                    ) from None
                if "locked" not in str(error) and "busy" not in str(error):
                    raise
                raise WriteFault(
                    AppendErrorKind.BUSY,
                    f"{self._path}: the database stayed locked by another writer; retry ({error})",
                ) from None

    @contextmanager
    def snapshot(self) -> Iterator[sqlite3.Cursor]:
        """``BEGIN`` ... ``COMMIT``: the reads in between see one state of the file."""
        with self.lock:
            self._fresh()
            cursor = self.connection.cursor()
            cursor.execute("BEGIN")
            try:
                yield cursor
            finally:
                if self.connection.in_transaction:
                    cursor.execute("COMMIT")

    @contextmanager
    def query(self) -> Iterator[sqlite3.Cursor]:
        """A cursor under the connection's lock."""
        with self.lock:
            self._fresh()
            yield self.connection.cursor()

    def close(self) -> None:
        """Close the connection."""
        with self.lock:
            self.connection.close()


def _looks(path: Path) -> tuple[int, int, int]:
    """What tells that a file was written: its inode, size and time of change."""
    status = path.stat()
    return status.st_ino, status.st_size, status.st_mtime_ns


def _writer_beside(path: Path) -> bool:
    """Whether a writer's log or journal lies beside the file (a writer holds it, or left
    it): an empty write-ahead log with no shared memory beside it holds nothing to read.

    A log that holds writes but has no shared-memory file beside it is one a writer left
    (or holds in exclusive mode): reading it would make that file, so it is refused.
    """
    if path.with_name(path.name + "-journal").exists():
        return True
    try:
        logged = path.with_name(path.name + "-wal").stat().st_size
    except OSError:
        return False
    if path.with_name(path.name + "-shm").exists():
        return True
    if logged == 0:
        return False
    raise StoreLayoutError(
        f"{path}: its write-ahead log ({path.name}-wal) holds writes that are not in the file "
        f"yet, and no {path.name}-shm lies beside it (a writer stopped without closing it, "
        "the file was copied without it, or a writer holds it alone): reading it would make "
        f"that file; once no writer holds it, correx-tools init-db {path} folds the log in"
    )


def _read_only_connection(path: Path, timeout: float, *, immutable: bool) -> sqlite3.Connection:
    """A connection that SQLite itself keeps from writing (``mode=ro``); ``immutable``:
    nor from locking the file or making any file beside it."""
    flags = "?mode=ro&immutable=1" if immutable else "?mode=ro"
    return sqlite3.connect(
        path.resolve().as_uri() + flags,
        uri=True,
        timeout=timeout,
        isolation_level=None,
        check_same_thread=False,
    )
