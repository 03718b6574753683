"""What a cache of transcripts remembers of each file it read: enough to tell, with one
``stat``, that a file has not changed since.

It is one table in the cache's own SQLite file, beside the store's tables
(the store never reads it). A row is written after the sessions it names, so
a cache stopped in between holds events its table does not know of yet; the
next look reads that file again and finds them there (an import writes only
what is new). Deleting the file loses nothing: the next look reads every
transcript again.
"""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from types import TracebackType
from typing import final

from ...stores.sqlite.removing import remove_sessions
from ..agents import REGISTRY
from ..common.evaluations import stamp_files

TABLE = "correx_transcript_files"
"""The table's name: it marks a SQLite file as a cache of transcripts."""

_CREATE = f"""CREATE TABLE IF NOT EXISTS {TABLE} (
    path     TEXT PRIMARY KEY,
    stamp    TEXT NOT NULL,
    sessions TEXT NOT NULL,
    shared   TEXT NOT NULL,
    state    TEXT NOT NULL,
    reason   TEXT NOT NULL
)"""


RULES = "rules 10"
"""The import's rules the cache's sessions were made by, kept in every file's stamp: when a
release changes what a transcript gives (rules 2: exit codes not recorded, edits that did
not take effect, times not recorded, values cut to fit; rules 3: the conversation around
the calls of Claude Code and Codex; rules 4: of every other format that records one;
rules 5: a Cline task's tokens; rules 6: each call's tier and capabilities from the one
capability table the audit reads too; rules 7: a value too large in many small parts, or
nested too deeply, replaced by a mark rather than the session refused; rules 8: a session
whose transcript records no id is named by its file's place under the folder read, so no
two files share a name; rules 9: how a run ended, mini-swe-agent, OpenHands' completion
logs, SWE-agent's working directory; rules 10: a text of the conversation too long for an
event cut to fit, rather than its session refused), every file is read again once, and
each session whose events differ is imported again (one under another name: the old name
goes)."""
WITHOUT_CONVERSATION = " without conversation"
"""Added to the rules of a cache made without the conversation (``--no-conversation``):
a cache made the other way is read again, as under other rules."""


def key_of(path: Path) -> str:
    """How the cache names a file: its absolute path (the same however it was reached)."""
    return os.path.abspath(path)


def stamp_of(path: str, found: os.stat_result, rules: str = RULES) -> str:
    """What one ``stat`` (``found``) says of the file at ``path`` (its size, time and
    inode), and the import's rules: it changed when this did, or when the file read with
    it did (`companion_of`, looked at here), or a verdict an evaluation wrote beside it
    (`evaluations.stamp_files`)."""
    stamp = f"{rules}:{found.st_size}:{found.st_mtime_ns}:{found.st_ino}"
    companion = companion_of(path)
    if companion is not None:
        try:
            beside = os.stat(companion)
            stamp += f":{beside.st_size}:{beside.st_mtime_ns}"
        except OSError:
            pass
    # An evaluation that ends later reads the run again; only a run's file has a verdict.
    verdicts = stamp_files(Path(path)) if path.endswith((".traj", ".json")) else ()
    for verdict in verdicts:
        try:
            beside = os.stat(verdict)
            stamp += f":{verdict.name}:{beside.st_size}:{beside.st_mtime_ns}"
        except OSError:
            pass
    return stamp


def _first(pairs: Iterable[tuple[str, str]]) -> dict[str, str]:
    """A table of ``pairs`` in which the first pair of a key wins (as a loop over
    `REGISTRY` that returns at the first match does)."""
    table: dict[str, str] = {}
    for key, value in pairs:
        table.setdefault(key, value)
    return table


_LOGS = _first((f.database.suffix, f.database.log) for f in REGISTRY if f.database)
"""Each database format's file name ending, and its write-ahead log's."""
_COMPANIONS = _first((f.companion.transcript, f.companion.name) for f in REGISTRY if f.companion)
"""Each transcript's name that has a companion, and the companion's."""
_ENDINGS = (*_LOGS, *_COMPANIONS)
"""What a file's path ends with when it may have a file read with it: any other has none."""


def companion_of(path: str) -> str | None:
    """The file read with the one at ``path``, if it has one: a database's write-ahead log
    (written there first), a transcript's companion (`AgentFormat.companion`). Paths as
    text, read as `Path.suffix` and `Path.with_name` read them (a look makes no path object
    for a file it does not read)."""
    if not path.endswith(_ENDINGS):
        return None  # most files: one test, where a look asks this of each of thousands
    folder, name = os.path.split(path)
    dot = name.rfind(".")
    log = _LOGS.get(name[dot:] if 0 < dot < len(name) - 1 else "")
    if log is not None:
        return path + log
    companion = _COMPANIONS.get(name)
    return None if companion is None else os.path.join(folder, companion)


@final
@dataclass(frozen=True, slots=True)
class FileRow:
    """One file as the cache last read it.

    ``sessions`` are the sessions it gave that the cache holds from it;
    ``shared`` the ones it gave that another file gave first (the same events,
    or other ones: then ``reason`` says so). ``state`` is ``read``, ``skipped``
    (not a transcript) or ``refused`` (a transcript that could not be read; the
    sessions it gave before stay as they were until it can be read again).
    """

    path: str
    stamp: str
    sessions: tuple[str, ...] = ()
    shared: tuple[str, ...] = ()
    state: str = "read"
    reason: str = ""


class Manifest:
    """The table, over its own connection to the cache's file."""

    def __init__(self, path: Path) -> None:
        # One look at a time uses it, from whichever thread follows the files.
        self._connection = sqlite3.connect(
            path, timeout=30.0, isolation_level=None, check_same_thread=False
        )
        try:
            self._connection.execute(_CREATE)
        except BaseException:
            self._connection.close()
            raise

    def rows(self) -> dict[str, FileRow]:
        """Every file the cache knows, by path."""
        query = f"SELECT path, stamp, sessions, shared, state, reason FROM {TABLE}"
        return {
            path: FileRow(path, stamp, tuple(json.loads(own)), tuple(json.loads(shared)), state,
                          reason)
            for path, stamp, own, shared, state, reason in self._connection.execute(query)
        }  # fmt: skip

    def stamps(self) -> dict[str, str]:
        """Every file the cache knows, by path: its stamp (all a look needs of a file that
        did not change)."""
        return dict(self._connection.execute(f"SELECT path, stamp FROM {TABLE}"))

    def row(self, path: str) -> FileRow | None:
        """The row of one file, if the cache knows it."""
        query = f"SELECT path, stamp, sessions, shared, state, reason FROM {TABLE} WHERE path = ?"
        found = self._connection.execute(query, (path,)).fetchone()
        if found is None:
            return None
        path, stamp, own, shared, state, reason = found
        return FileRow(
            path, stamp, tuple(json.loads(own)), tuple(json.loads(shared)), state, reason
        )

    def refused(self) -> list[tuple[str, str]]:
        """Every file the cache could not show as it is, with why: a transcript that could
        not be read, a session another file gave first with other events."""
        query = f"SELECT path, reason FROM {TABLE} WHERE state = 'refused' ORDER BY path"
        return [(path, reason) for path, reason in self._connection.execute(query)]

    def holds_sessions(self) -> bool:
        """Whether the cache's store holds any session: one row of its events read (where
        the store's `sessions` reads every session's id)."""
        return self._connection.execute("SELECT 1 FROM events LIMIT 1").fetchone() is not None

    def check_writable(self) -> None:
        """Nothing, when the file can be written; the database's error otherwise (a read-only
        disk, a file the user may not write)."""
        self._connection.execute("BEGIN IMMEDIATE")
        self._connection.execute("ROLLBACK")

    def save(self, rows: Iterable[FileRow], gone: Iterable[str] = ()) -> None:
        """Write ``rows`` and forget the files ``gone``, in one transaction."""
        with _Transaction(self._connection) as cursor:
            cursor.executemany(f"DELETE FROM {TABLE} WHERE path = ?", [(p,) for p in gone])
            cursor.executemany(
                f"INSERT OR REPLACE INTO {TABLE} (path, stamp, sessions, shared, state, reason) "
                "VALUES (?, ?, ?, ?, ?, ?)",
                [
                    (r.path, r.stamp, json.dumps(list(r.sessions)), json.dumps(list(r.shared)),
                     r.state, r.reason)
                    for r in rows
                ],
            )  # fmt: skip

    def forget_sessions(self, sessions: Iterable[str]) -> None:
        """Remove every row of these sessions from the store's tables, in one transaction
        (`remove_sessions`)."""
        names = list(sessions)
        if not names:
            return
        with _Transaction(self._connection) as cursor:
            remove_sessions(cursor, names)

    def close(self) -> None:
        """Close the connection."""
        self._connection.close()


class _Transaction:
    """``BEGIN IMMEDIATE`` … ``COMMIT``, or ``ROLLBACK`` when the block raised."""

    def __init__(self, connection: sqlite3.Connection) -> None:
        self._connection = connection

    def __enter__(self) -> sqlite3.Cursor:
        cursor = self._connection.cursor()
        cursor.execute("BEGIN IMMEDIATE")
        return cursor

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        trace: TracebackType | None,
    ) -> None:
        self._connection.execute("ROLLBACK" if kind is not None else "COMMIT")


def foreign_store(path: Path) -> bool:
    """Whether the file at ``path`` is something other than a cache of transcripts or an
    empty store (someone's own store, another database, another file): never to be
    written as a cache."""
    if not path.is_file() or path.stat().st_size == 0:
        return False
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True)
    try:
        listed = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        tables = {name for (name,) in listed}
        if not tables or TABLE in tables:
            return False
        if "events" not in tables:
            return True
        return connection.execute("SELECT 1 FROM events LIMIT 1").fetchone() is not None
    except sqlite3.DatabaseError:
        return True  # not a SQLite file at all
    finally:
        connection.close()
