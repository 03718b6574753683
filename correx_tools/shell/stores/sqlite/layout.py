"""The SQLite store's tables, by layout version: created, recognised, upgraded.

Layout 2 (this release) keeps the time-travel index beside the events
(`indexing`); layout 1 (release 0.2.0) had the events and the
invocation ids only. ``PRAGMA user_version`` holds the layout (0 before it was
set, as layout 1 left it). A file of layout 1 opens read-only and is answered
by folding; to write to it, or to answer from an index, it is upgraded in one
transaction (``correx-tools reindex FILE``).
"""

from __future__ import annotations

import sqlite3

LAYOUT = 2
"""The layout this release writes."""

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

# What layout 2 adds to layout 1's tables; every added column is derived (NULL until indexed).
_ADDED_COLUMNS = (
    "ALTER TABLE events ADD COLUMN kind INTEGER",
    "ALTER TABLE events ADD COLUMN invocation_id TEXT",
    "ALTER TABLE events ADD COLUMN label TEXT",
    "ALTER TABLE events ADD COLUMN code INTEGER",
    "ALTER TABLE events ADD COLUMN effect INTEGER",
    "ALTER TABLE events ADD COLUMN chain INTEGER",
    "ALTER TABLE invocations ADD COLUMN status INTEGER",
    "ALTER TABLE invocations ADD COLUMN requested_at TEXT",
    "ALTER TABLE invocations ADD COLUMN started_seq INTEGER",
    "ALTER TABLE invocations ADD COLUMN ended_seq INTEGER",
    "ALTER TABLE invocations ADD COLUMN tool_name TEXT",
    "ALTER TABLE invocations ADD COLUMN tier INTEGER",
    "ALTER TABLE invocations ADD COLUMN started_at TEXT",
    "ALTER TABLE invocations ADD COLUMN completed_at TEXT",
    "ALTER TABLE invocations ADD COLUMN end_label TEXT",
    "ALTER TABLE invocations ADD COLUMN end_code INTEGER",
)

_INDEX_TABLES = (
    """CREATE TABLE IF NOT EXISTS session_heads (
        session_id      TEXT    PRIMARY KEY,
        indexed_through INTEGER NOT NULL,
        requested INTEGER NOT NULL, started INTEGER NOT NULL, completed INTEGER NOT NULL,
        failed    INTEGER NOT NULL, rejected INTEGER NOT NULL, refused INTEGER NOT NULL,
        chain     INTEGER NOT NULL,
        stale     INTEGER NOT NULL DEFAULT 0
    )""",
    """CREATE TABLE IF NOT EXISTS checkpoints (
        session_id TEXT    NOT NULL,
        sequence   INTEGER NOT NULL,
        requested INTEGER NOT NULL, started INTEGER NOT NULL, completed INTEGER NOT NULL,
        failed    INTEGER NOT NULL, rejected INTEGER NOT NULL, refused INTEGER NOT NULL,
        chain      INTEGER NOT NULL,
        seal       INTEGER NOT NULL,
        PRIMARY KEY (session_id, sequence)
    ) WITHOUT ROWID""",
    """CREATE TABLE IF NOT EXISTS store_settings (
        name  TEXT PRIMARY KEY,
        value INTEGER NOT NULL
    )""",
    "CREATE INDEX IF NOT EXISTS invocations_by_session ON invocations (session_id, sequence)",
    """CREATE INDEX IF NOT EXISTS invocations_open ON invocations (session_id, sequence)
        WHERE ended_seq IS NULL""",
    """CREATE INDEX IF NOT EXISTS events_refused ON events (session_id, sequence)
        WHERE effect < 0""",
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
    """The layout of the file: 2, 1, 0 for one with no tables yet, ``None`` for another database."""
    tables = {
        row[0] for row in connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
    }
    if not tables:
        return 0
    if not {"events", "invocations"} <= tables:
        return None
    version = int(connection.execute("PRAGMA user_version").fetchone()[0])
    return version if version >= 2 else 1


def create(cursor: sqlite3.Cursor, interval: int) -> None:
    """The tables of layout 2 in an empty file, in the caller's transaction."""
    for statement in _TABLES_1 + _ADDED_COLUMNS:
        cursor.execute(statement)
    _add_index(cursor, interval)


def upgrade(cursor: sqlite3.Cursor, interval: int) -> None:
    """Layout 1's tables made layout 2's, every session's index still to be built."""
    for statement in _ADDED_COLUMNS:
        cursor.execute(statement)
    _add_index(cursor, interval)


def _add_index(cursor: sqlite3.Cursor, interval: int) -> None:
    for statement in _INDEX_TABLES:
        cursor.execute(statement)
    cursor.execute(
        "INSERT OR IGNORE INTO store_settings (name, value) VALUES ('checkpoint_interval', ?)",
        (interval,),
    )
    cursor.execute(f"PRAGMA user_version = {LAYOUT}")


def stored_interval(connection: sqlite3.Connection | sqlite3.Cursor) -> int:
    """The interval the store was made with."""
    row = connection.execute(
        "SELECT value FROM store_settings WHERE name = 'checkpoint_interval'"
    ).fetchone()
    return int(row[0])
