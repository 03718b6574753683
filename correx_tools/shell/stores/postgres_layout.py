"""The PostgreSQL store's tables: created on first use, checked before they are read.

Tables (in the schema given, ``public`` by default):

* ``correx_sessions(session_key, session_id, last_sequence)``: one row per session;
  an append moves ``last_sequence`` on only from the writer's expected sequence.
* ``correx_events(position, session_key, sequence, recorded_at, type, version, data)``:
  ``position`` is a global identity column; ``data`` the canonical JSON text.
* ``correx_invocations(invocation_key, invocation_id, session_key, sequence)``:
  invocation ids are unique across sessions.

Ids are kept as their UTF-8 bytes (``BYTEA``) and looked up by their SHA-256
digest (the ``*_key`` columns): see :mod:`.postgres`.
"""

from __future__ import annotations

import hashlib
import re
from typing import Any

SCHEMA_NAME = re.compile(r"[a-z_][a-z0-9_]{0,62}")


_DDL = (
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


def id_key(identifier: str) -> bytes:
    """The SHA-256 digest of an id's UTF-8 bytes: the column the store looks ids up by."""
    return hashlib.sha256(identifier.encode("utf-8")).digest()


CHANNEL = "correx_events"
"""The channel every commit notifies, with the hex digest of its session id."""


def create_tables(connection: Any, schema: str) -> None:
    """Create ``schema`` and its tables if they do not exist; refuse an earlier layout."""
    from psycopg import sql  # noqa: PLC0415 - the optional extra, present wherever a connection is

    names = {"schema": sql.Identifier(schema)}
    with connection.transaction():
        # Serialise concurrent first uses: CREATE ... IF NOT EXISTS can still race.
        connection.execute("SELECT pg_advisory_xact_lock(hashtext(%s))", (f"correx:{schema}",))
        for statement in _DDL:
            connection.execute(sql.SQL(statement).format(**names))
    # CREATE ... IF NOT EXISTS keeps tables of an earlier layout (text ids) as they are.
    if not has_tables(connection, schema):
        raise ValueError(
            f"schema {schema!r} holds correx tables of an earlier layout "
            "(ids as text, version 0.1); use a new schema (see docs/deployment.md)"
        )


def has_tables(connection: Any, schema: str) -> bool:
    """Whether ``schema`` holds this store's tables (in their current layout)."""
    found = connection.execute(
        "SELECT 1 FROM information_schema.columns WHERE table_schema = %s "
        "AND table_name = 'correx_sessions' AND column_name = 'session_key'",
        (schema,),
    ).fetchone()
    return found is not None
