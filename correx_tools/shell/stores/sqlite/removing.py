"""Removing whole sessions from a SQLite store: for the transcript cache, whose sessions are
replaced when their files are rewritten (a store's own sessions are never removed).

Every table of a SQLite store's layout keys a session's rows by its ``session_id`` column
(``tests/test_transcript_cache.py`` holds the layout to that), so a session goes whole,
its index with it, whichever layout the store has.
"""

from __future__ import annotations

from collections.abc import Iterable

from ..sql.dialect import Cursor
from .search import SQLiteSearch


def remove_sessions(cursor: Cursor, sessions: Iterable[str]) -> None:
    """Delete every row of ``sessions``, in the caller's transaction."""
    names = [(session,) for session in sessions]
    if not names:
        return
    # Fetched whole before the next statement: a cursor's next query ends its last one.
    every = cursor.execute("SELECT name FROM sqlite_master WHERE type = 'table'").fetchall()
    tables = [
        name
        for (name,) in every
        if any(
            column[1] == "session_id"
            for column in cursor.execute(f'PRAGMA table_info("{name}")').fetchall()
        )
    ]
    if "session_catalog" in tables:
        # The words of a removed session stay in the full-text index, unreachable: counted.
        for (name,) in names:
            row = cursor.execute(
                "SELECT number, searched FROM session_catalog WHERE session_id = ?", (name,)
            ).fetchone()
            if row is not None:
                SQLiteSearch.dropped(cursor, int(row[0]), int(row[1]))
                cursor.execute("DELETE FROM search_runs WHERE number = ?", (int(row[0]),))
    for table in tables:
        cursor.executemany(f'DELETE FROM "{table}" WHERE session_id = ?', names)
