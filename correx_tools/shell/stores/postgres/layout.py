"""The PostgreSQL store's tables, by layout version: created, recognised, upgraded.

Tables (in the schema given, ``public`` by default):

* ``correx_sessions(session_key, session_id, last_sequence)``: one row per session;
  an append moves ``last_sequence`` on only from the writer's expected sequence.
* ``correx_events(position, session_key, sequence, recorded_at, type, version, data)``:
  ``position`` is a global identity column; ``data`` the canonical JSON text.
* ``correx_invocations(invocation_key, invocation_id, session_key, sequence)``:
  invocation ids are unique across sessions.

Later layouts add the time-travel index, written once for every database
(`correx_tools.shell.stores.sql.layout`), ``correx_settings`` recording the
layout, and triggers that mark a session's index stale when its events change
other than by this store's appends. A schema of layout 1 (release 0.2.0) opens read-only and
is answered by folding; to write to it, it is upgraded in one transaction
(``correx-tools reindex URL``). Ids are kept as their UTF-8 bytes (``BYTEA``) and
looked up by their SHA-256 digest (the ``*_key`` columns): see `postgres`.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

from ..sql.dialect import Dialect
from ..sql.layout import CATALOG_LAYOUT, LAYOUT, index_statements
from .search import TABLES as SEARCH_TABLES
from .team import partition_events, push_tables

SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")

CHANNEL = "correx_events"
"""The channel every commit notifies, with the hex digest of its session id."""

_TABLES_1 = (
    "CREATE SCHEMA IF NOT EXISTS {schema}",
    """CREATE TABLE IF NOT EXISTS {schema}.correx_sessions (
        session_key   BYTEA  PRIMARY KEY CHECK (octet_length(session_key) = 32),
        session_id    BYTEA  NOT NULL,
        last_sequence BIGINT NOT NULL CHECK (last_sequence >= 0)
    )""",
    """CREATE TABLE IF NOT EXISTS {schema}.correx_events (
        position    BIGINT      GENERATED ALWAYS AS IDENTITY PRIMARY KEY,
        session_key BYTEA       NOT NULL,
        sequence    BIGINT      NOT NULL CHECK (sequence >= 1),
        recorded_at TIMESTAMPTZ NOT NULL,
        type        TEXT        NOT NULL,
        version     INTEGER     NOT NULL,
        data        TEXT        NOT NULL,
        UNIQUE (session_key, sequence)
    )""",
    """CREATE TABLE IF NOT EXISTS {schema}.correx_invocations (
        invocation_key BYTEA  PRIMARY KEY CHECK (octet_length(invocation_key) = 32),
        invocation_id  BYTEA  NOT NULL,
        session_key    BYTEA  NOT NULL,
        sequence       BIGINT NOT NULL
    )""",
)

_TRIGGERS = (
    # Whatever changes a session's events other than this store's own appends makes its
    # index stale, to be rebuilt before it is trusted again.
    """CREATE OR REPLACE FUNCTION {schema}.correx_mark_stale() RETURNS trigger
        LANGUAGE plpgsql AS $$
        BEGIN
            IF TG_OP = 'DELETE' THEN
                UPDATE {schema}.correx_session_heads SET stale = true
                WHERE session_key = OLD.session_key;
                RETURN OLD;
            END IF;
            IF TG_OP = 'UPDATE' THEN
                UPDATE {schema}.correx_session_heads SET stale = true
                WHERE session_key IN (OLD.session_key, NEW.session_key);
            ELSE
                UPDATE {schema}.correx_session_heads SET stale = true
                WHERE session_key = NEW.session_key;
            END IF;
            RETURN NEW;
        END $$""",
    "DROP TRIGGER IF EXISTS correx_events_changed ON {schema}.correx_events",
    """CREATE TRIGGER correx_events_changed
        AFTER UPDATE OF session_key, sequence, recorded_at, type, version, data
        ON {schema}.correx_events
        FOR EACH ROW EXECUTE FUNCTION {schema}.correx_mark_stale()""",
    "DROP TRIGGER IF EXISTS correx_events_deleted ON {schema}.correx_events",
    """CREATE TRIGGER correx_events_deleted AFTER DELETE ON {schema}.correx_events
        FOR EACH ROW EXECUTE FUNCTION {schema}.correx_mark_stale()""",
    "DROP TRIGGER IF EXISTS correx_events_unindexed ON {schema}.correx_events",
    """CREATE TRIGGER correx_events_unindexed AFTER INSERT ON {schema}.correx_events
        FOR EACH ROW WHEN (NEW.effect IS NULL) EXECUTE FUNCTION {schema}.correx_mark_stale()""",
)


def id_key(identifier: str) -> bytes:
    """The SHA-256 digest of an id's UTF-8 bytes: the column the store looks ids up by."""
    return hashlib.sha256(identifier.encode("utf-8")).digest()


def _run(connection: Any, schema: str, statements: tuple[str, ...]) -> None:
    from psycopg import sql  # noqa: PLC0415 - the optional extra, present wherever a connection is

    names = {"schema": sql.Identifier(schema)}
    for statement in statements:
        connection.execute(sql.SQL(statement).format(**names))


def lock_schema(connection: Any, schema: str) -> None:
    """Serialise concurrent creations and upgrades of one schema (for this transaction)."""
    connection.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"correx:{schema}",))


STORE_TABLES = ("correx_activity", "correx_catalog", "correx_checkpoints", "correx_events",
                "correx_invocations", "correx_models", "correx_pushed", "correx_search",
                "correx_search_runs", "correx_session_heads", "correx_sessions",
                "correx_settings", "correx_spent")  # fmt: skip
"""The tables a store of any layout keeps (other tables of the schema are not its)."""


def layout_of(connection: Any, schema: str) -> int | None:
    """The schema's layout: 4, 3, 2, 1; 0 when it holds no tables, ``None`` for the text-id
    layout."""
    columns = {
        (table, column)
        for table, column in connection.execute(
            "SELECT table_name, column_name FROM information_schema.columns "
            "WHERE table_schema = %s AND table_name = ANY(%s)",
            (schema, list(STORE_TABLES)),
        )
    }
    if not columns:
        return 0
    if ("correx_sessions", "session_key") not in columns:
        return None
    if ("correx_settings", "value") not in columns:
        return 1
    from psycopg import sql  # noqa: PLC0415 - the optional extra

    row = connection.execute(
        sql.SQL("SELECT value FROM {}.correx_settings WHERE name = 'layout'").format(
            sql.Identifier(schema)
        )
    ).fetchone()
    return 1 if row is None else int(row[0])


def hidden_tables(connection: Any, schema: str) -> str | None:
    """Why this role may not read the store the schema holds (the catalog lists every
    table, the information schema only those the role may use, so such a store would look
    like none, or like an older layout); ``None`` when it may, or the schema holds none."""
    rows = connection.execute(
        "SELECT c.relname, has_schema_privilege(n.oid, 'USAGE'), "
        "has_table_privilege(c.oid, 'SELECT') "
        "FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "
        "WHERE n.nspname = %s AND c.relname = ANY(%s) AND c.relkind IN ('r', 'p') "
        "ORDER BY c.relname",
        (schema, list(STORE_TABLES)),
    ).fetchall()
    if not rows:
        return None
    if not rows[0][1]:
        missing = "USAGE on the schema"
    else:
        unreadable = [table for table, _, select in rows if not select]
        if not unreadable:
            return None
        missing = f"SELECT on {', '.join(unreadable)}"
    return f"this role may not read it (it lacks {missing}); GRANT it, or connect as its owner"


def create(connection: Any, d: Dialect, schema: str, interval: int) -> None:
    """The tables of this release's layout, in the caller's transaction: the events
    partitioned (`team`), the push's table beside them."""
    _run(connection, schema, _TABLES_1)
    upgrade(connection, d, schema, interval, since=1)
    partition(connection, d, schema)


def partition(connection: Any, d: Dialect, schema: str) -> int | None:
    """The schema's events partitioned (`team.partition_events`: how many moved, ``None``
    when they already were), with their triggers."""
    moved = partition_events(connection, schema, d)
    if moved is not None:
        _run(connection, schema, _TRIGGERS)
    return moved


def upgrade(connection: Any, d: Dialect, schema: str, interval: int, *, since: int) -> None:
    """The tables of layout ``since`` made this release's, every session's index still to be
    built (`correx_tools.shell.stores.sql.rebuilding`)."""
    for statement in index_statements(since):
        connection.execute(d.sql(statement))
    if since < CATALOG_LAYOUT:
        _run(connection, schema, SEARCH_TABLES)
    _run(connection, schema, _TRIGGERS)
    push_tables(connection, schema)
    _record(connection, schema, interval)


def _record(connection: Any, schema: str, interval: int) -> None:
    from psycopg import sql  # noqa: PLC0415 - the optional extra

    query = sql.SQL(
        "INSERT INTO {}.correx_settings (name, value) VALUES (%s, %s) ON CONFLICT DO NOTHING"
    ).format(sql.Identifier(schema))
    connection.execute(query, ("checkpoint_interval", interval))
    connection.execute(
        sql.SQL(
            "INSERT INTO {}.correx_settings (name, value) VALUES ('layout', %s) "
            "ON CONFLICT (name) DO UPDATE SET value = EXCLUDED.value"
        ).format(sql.Identifier(schema)),
        (LAYOUT,),
    )
