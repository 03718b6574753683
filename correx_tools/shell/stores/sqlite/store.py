"""The embedded default store: one SQLite file.

WAL journal, ``synchronous=FULL`` (a returned append survives a power cut),
``BEGIN IMMEDIATE`` for every write so concurrent writers queue on the lock
instead of failing mid-transaction, and one transaction per append. Invocation
ids are unique across sessions by a ``UNIQUE`` table of their own. Reading,
writing and the index are the SQL engine's (`correx_tools.shell.stores.sql`);
this module opens the file and keeps its layout.
"""

from __future__ import annotations

import os
import sqlite3
from collections.abc import Callable, Collection, Iterable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, final

from returns.result import Result

from ....core.lifecycle.events import StoredEvent
from ..addresses import StoreAddress
from ..port import AppendError, StoreLayoutError
from ..sql.indexing import CHECKPOINT_INTERVAL
from ..sql.layout import LAYOUT
from ..sql.store import SqlEventStore
from .dialect import SQLiteDatabase
from .layout import create, layout_of, upgrade
from .removing import remove_sessions

if TYPE_CHECKING:
    from ..sql.prepared import PreparedSession, Preparer

BUSY_TIMEOUT_SECONDS = 30.0
READ_TIMEOUT_SECONDS = 5.0


@final
class SQLiteEventStore(SqlEventStore):
    """An `EventStore` in the SQLite file at ``path``.

    The file and its tables are created on first use, with a time-travel index
    kept beside the events (a checkpoint of each session's counters every
    ``checkpoint_interval`` events; see `indexing`). A file written by an
    older release (an older layout) is refused for writing with a message that
    says how to upgrade it, unless ``upgrade=True`` upgrades it in place, in one
    transaction. With ``read_only=True`` nothing is ever written or created:
    the file must exist and hold an event store (a `StoreLayoutError` says what
    it holds instead), ``append`` raises ``PermissionError``, and a file of an
    older layout is read as it is (its index, from layout 3 on; before that,
    questions about its past are answered by folding). One store object may be
    shared by threads; processes each open their own.
    """

    _layout = LAYOUT

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
        self.name = str(self.path)
        self.read_only = read_only
        if read_only:
            if not self.path.is_file():
                raise StoreLayoutError(f"{self.path}: no such file")
            # A reader waits for a writer's lock a short while, then says so in one line.
            timeout = min(busy_timeout, READ_TIMEOUT_SECONDS)
            self._database = self._sqlite = SQLiteDatabase.reading(self.path, timeout)
        else:
            connection = sqlite3.connect(
                self.path, timeout=busy_timeout, isolation_level=None, check_same_thread=False
            )
            self._database = self._sqlite = SQLiteDatabase(connection, self.path)
        connection = self._sqlite.connection
        try:
            self.layout = self._open(upgrade, checkpoint_interval, progress)
            self._note_catalog(connection.cursor())
            self.checkpoint_interval = self._interval(connection, checkpoint_interval)
        except BaseException:
            connection.close()
            raise

    def _open(
        self, upgrade: bool, interval: int, progress: Callable[[int, int], None] | None
    ) -> int:
        """Check the file's layout; create or upgrade its tables if asked. Its layout then."""
        connection = self._sqlite.connection
        try:
            layout = layout_of(connection)
        except sqlite3.DatabaseError as error:
            raise StoreLayoutError(cannot_open(self.path, error)) from None
        if layout == 0 and self.read_only and _is_empty(self.path):
            raise StoreLayoutError(
                f"{self.path}: an empty file, not a correx event store nor a transcript "
                f"(correx-tools init-db makes it a store)"
            )
        if layout is None or (layout == 0 and self.read_only):
            held = "no tables" if layout == 0 else "tables of another kind"
            raise StoreLayoutError(
                f"{self.path}: not a correx event store (it holds {held}); "
                "create one with correx-tools init-db"
            )
        if self.read_only:
            return layout
        connection.execute("PRAGMA journal_mode=WAL")
        connection.execute("PRAGMA synchronous=FULL")
        if not self._current(connection.cursor(), layout):
            # Decided again inside the write lock: another process may be creating it too.
            with self._sqlite.writing() as cursor:
                self._prepare(cursor, upgrade, interval, progress)
        return LAYOUT

    def import_replacing(
        self, sessions: Collection[str], stored_events: Iterable[StoredEvent]
    ) -> Result[int, AppendError]:
        """`import_events`, with every row of ``sessions`` removed first in the same
        transaction: a reader sees each of them as it was or as it is now, never missing,
        and a refused import leaves them as they were. For the transcript cache, whose
        sessions are replaced when their files are rewritten in place."""
        chosen = list(sessions)
        return self._import(stored_events, first=lambda cursor: remove_sessions(cursor, chosen))

    def preparer(self) -> Preparer:
        """How this store writes a new session's rows, for other processes to make them
        (`prepared`): SQLite keeps a session's key as its id, so they need nothing of the
        file."""
        from ..sql.prepared import Preparer  # noqa: PLC0415 - only a writer of many new sessions

        return Preparer(self._sqlite.dialect, LAYOUT, self.checkpoint_interval)

    def import_prepared(self, sessions: Sequence[PreparedSession]) -> Result[int, AppendError]:
        """Write new sessions whose rows were prepared elsewhere (`preparer`), in one
        transaction, all or none: a session that holds events already, an id another session
        holds, rows made by another store's rules are refused (`prepared.write_prepared`)."""
        from ..sql.prepared import write_prepared  # noqa: PLC0415 - as `preparer`

        self._refuse_writes()
        return write_prepared(self._sqlite, sessions, self.checkpoint_interval)

    def _prepare(
        self,
        cursor: sqlite3.Cursor,
        upgrade_it: bool,
        interval: int,
        progress: Callable[[int, int], None] | None,
    ) -> None:
        layout = layout_of(cursor)
        if layout is None:
            return  # another kind of tables: refused before, by the caller
        self._bring_to_layout(
            cursor, layout, allowed=upgrade_it, interval=interval, progress=progress
        )

    def _create_tables(self, cursor: Any, interval: int) -> None:
        create(cursor, self._sqlite.dialect, interval)

    def _layout_in(self, cursor: Any) -> int | None:
        return layout_of(cursor)

    def _upgrade_tables(self, cursor: Any, interval: int, *, since: int) -> None:
        upgrade(cursor, self._sqlite.dialect, interval, since=since)

    @property
    def address(self) -> StoreAddress:
        """What opens this store again, in another process."""
        return StoreAddress("sqlite", str(self.path))

    def close(self) -> None:
        """Close the connection."""
        self._sqlite.close()


def cannot_open(path: object, error: sqlite3.DatabaseError) -> str:
    """Why SQLite could not use ``path``, in words: a file this user may not write, a
    folder where it cannot be made, or a file that is no SQLite database at all."""
    said = str(error)
    if "readonly" in said:
        return f"{path}: cannot be written by this user ({said})"
    if "unable to open" in said:
        return f"{path}: cannot be opened or made there ({said})"
    return f"{path}: not a SQLite event store ({said})"


def _is_empty(path: str | os.PathLike[str]) -> bool:
    try:
        return os.stat(path).st_size == 0
    except OSError:
        return False
