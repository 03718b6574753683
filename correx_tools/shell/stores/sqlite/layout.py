"""The SQLite store's tables, by layout version: created, recognised, upgraded.

Layout 1 (release 0.2.0) had the events and the invocation ids only; what
later layouts add for the time-travel index is written once for every database
(`correx_tools.shell.stores.sql.layout`). ``PRAGMA user_version`` holds the
layout (0 before it was set, as layout 1 left it). A file of an older layout
opens read-only, answered from its index as it is (layout 3) or by folding
(layouts 1 and 2); to write to it, or to answer from an index where it keeps
none, it is upgraded in one transaction (``correx-tools reindex FILE``).
"""

from __future__ import annotations

import sqlite3

from ..sql.dialect import Dialect
from ..sql.layout import CATALOG_LAYOUT, LAYOUT, index_statements
from .search import TABLES as SEARCH_TABLES

_TABLES_1 = (
    """CREATE TABLE IF NOT EXISTS events (
        position    INTEGER PRIMARY KEY AUTOINCREMENT,
        session_id  TEXT    NOT NULL,
        sequence    INTEGER NOT NULL CHECK (sequence >= 1),
        recorded_at TEXT    NOT NULL,
        type        TEXT    NOT NULL,
        version     INTEGER NOT NULL,
        data        TEXT    NOT NULL,
        UNIQUE (session_id, sequence)
    )""",
    """CREATE TABLE IF NOT EXISTS invocations (
        invocation_id TEXT    PRIMARY KEY,
        session_id    TEXT    NOT NULL,
        sequence      INTEGER NOT NULL
    )""",
)

_TRIGGERS = (
    # Whatever changes a session's events other than this store's own appends makes its
    # index stale, to be rebuilt before it is trusted again: an update of an event's
    # own columns, a deletion, or an insert that did not index (an older release).
    """CREATE TRIGGER IF NOT EXISTS events_changed
        AFTER UPDATE OF session_id, sequence, recorded_at, type, version, data ON events
        BEGIN
            UPDATE session_heads SET stale = 1
            WHERE session_id IN (OLD.session_id, NEW.session_id);
        END""",
    """CREATE TRIGGER IF NOT EXISTS events_deleted AFTER DELETE ON events
        BEGIN
            UPDATE session_heads SET stale = 1 WHERE session_id = OLD.session_id;
        END""",
    """CREATE TRIGGER IF NOT EXISTS events_unindexed AFTER INSERT ON events
        WHEN NEW.effect IS NULL
        BEGIN
            UPDATE session_heads SET stale = 1 WHERE session_id = NEW.session_id;
        END""",
)


def layout_of(connection: sqlite3.Connection | sqlite3.Cursor) -> int | None:
    """The layout of the file: 4, 3, 2, 1; 0 for one with no tables yet, ``None`` for another
    database."""
    tables = {
        row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    if not tables:
        return 0
    if not {"events", "invocations"} <= tables:
        return None
    version = int(connection.execute("PRAGMA user_version").fetchone()[0])
    return version if version >= 2 else 1


def create(cursor: sqlite3.Cursor, d: Dialect, interval: int) -> None:
    """The tables of this release's layout in an empty file, in the caller's transaction."""
    for statement in _TABLES_1:
        cursor.execute(statement)
    upgrade(cursor, d, interval, since=1)


def upgrade(cursor: sqlite3.Cursor, d: Dialect, interval: int, *, since: int) -> None:
    """The tables of layout ``since`` made this release's, every session's index still to be
    built (`correx_tools.shell.stores.sql.rebuilding`)."""
    for statement in index_statements(since):
        cursor.execute(d.sql(statement))
    if since < CATALOG_LAYOUT:
        for statement in SEARCH_TABLES:
            cursor.execute(statement)
    for statement in _TRIGGERS:
        cursor.execute(statement)
    cursor.execute(
        "INSERT OR IGNORE INTO store_settings (name, value) VALUES ('checkpoint_interval', ?)",
        (interval,),
    )
    cursor.execute(f"PRAGMA user_version = {LAYOUT}")
