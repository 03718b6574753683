"""The team's store: what a PostgreSQL schema adds to hold every machine's sessions.

* ``correx_pushed``: a row per session a machine pushed (`push`), with the machine, the
  user, the sequence it was pushed through and the *digest* there (the chain value of the
  machine's own copy at that sequence), written in the transaction that writes the
  events. A push compares the digest with its own copy's: the same, and only the events
  after it are sent; another, and the copy changed other than by growing.
* The events partitioned by a hash of their session (`partition_events`,
  docs/deployment.md says why hash and not month): a session's events are read from one
  partition, and the key (session, sequence) stays unique across them all.
* Roles: what a pushing role and a reading role are granted (`grants`), and what a role
  lacks to push (`missing_to_push`).

Every name is quoted as an identifier; every value goes through a placeholder.
"""

from __future__ import annotations

from typing import Any

from ..sql.layout import ADDED_INDEXES, INDEX_TABLES

PARTITIONS = 16
"""Hash partitions of the events: each session's in one; enough that no partition outgrows
a vacuum on a large store, few enough that a statement touching all plans quickly."""

PUSHED = (
    """CREATE TABLE IF NOT EXISTS {schema}.correx_pushed (
        session_key BYTEA       PRIMARY KEY CHECK (octet_length(session_key) = 32),
        machine     TEXT        NOT NULL,
        user_name   TEXT        NOT NULL,
        through     BIGINT      NOT NULL CHECK (through >= 1),
        digest      BIGINT      NOT NULL,
        pushed_at   TIMESTAMPTZ NOT NULL DEFAULT now()
    )""",
    "CREATE INDEX IF NOT EXISTS correx_pushed_by_machine ON {schema}.correx_pushed (machine)",
)
"""The push's own table (see the module docstring)."""

_EVENT_INDEXES = [
    statement
    for statement in (*INDEX_TABLES, *ADDED_INDEXES.values())
    if "ON {events}" in statement
]
"""The layout's indexes of the events table, made again on the partitioned table."""

_PARTITIONED = (
    "CREATE SEQUENCE IF NOT EXISTS {schema}.correx_event_positions",
    "CREATE TABLE {schema}.correx_events_partitioned (LIKE {schema}.correx_events "
    "INCLUDING DEFAULTS INCLUDING CONSTRAINTS) PARTITION BY HASH (session_key)",
    "ALTER TABLE {schema}.correx_events_partitioned ALTER COLUMN position "
    "SET DEFAULT nextval({positions})",
    "ALTER TABLE {schema}.correx_events_partitioned ADD PRIMARY KEY (session_key, sequence)",
)


def partitioned(connection: Any, schema: str) -> bool:
    """Whether the schema's events table is partitioned."""
    row = connection.execute(
        "SELECT c.relkind FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n "
        "ON n.oid = c.relnamespace WHERE n.nspname = %s AND c.relname = 'correx_events'",
        (schema,),
    ).fetchone()
    return row is not None and row[0] == "p"


def partition_events(connection: Any, schema: str, d: Any) -> int | None:
    """Make the schema's events table a partitioned one, its rows moved over, in the caller's
    transaction: how many rows moved (``None`` when it already was). The events keep their
    columns, values and positions, and the table its indexes; its triggers are the
    caller's to make again (`layout.partition`)."""
    from psycopg import sql  # noqa: PLC0415 - the optional extra

    if partitioned(connection, schema):
        return None
    names = {
        "schema": sql.Identifier(schema),
        "positions": sql.Literal(f'"{schema}".correx_event_positions'),
    }

    def run(statement: str, **more: Any) -> Any:
        return connection.execute(sql.SQL(statement).format(**names, **more))

    run("LOCK TABLE {schema}.correx_events IN ACCESS EXCLUSIVE MODE")
    for statement in _PARTITIONED:
        run(statement)
    for remainder in range(PARTITIONS):
        run(
            "CREATE TABLE {part} PARTITION OF {schema}.correx_events_partitioned "
            "FOR VALUES WITH (MODULUS {modulus}, REMAINDER {remainder})",
            part=sql.Identifier(schema, f"correx_events_p{remainder}"),
            modulus=sql.Literal(PARTITIONS),
            remainder=sql.Literal(remainder),
        )
    moved = run(
        "INSERT INTO {schema}.correx_events_partitioned SELECT * FROM {schema}.correx_events"
    ).rowcount
    run(
        "SELECT setval({positions}, GREATEST((SELECT max(position) FROM "
        "{schema}.correx_events_partitioned), 1))"
    )
    run("DROP TABLE {schema}.correx_events")
    run("ALTER TABLE {schema}.correx_events_partitioned RENAME TO correx_events")
    run("CREATE INDEX correx_events_by_position ON {schema}.correx_events (position)")
    for statement in _EVENT_INDEXES:
        connection.execute(d.sql(statement))
    return int(moved)


def push_tables(connection: Any, schema: str) -> None:
    """The push's table, if the schema lacks it (in the caller's transaction)."""
    from psycopg import sql  # noqa: PLC0415 - the optional extra

    for statement in PUSHED:
        connection.execute(sql.SQL(statement).format(schema=sql.Identifier(schema)))


def has_push_tables(connection: Any, schema: str) -> bool:
    """Whether the schema holds the push's table."""
    row = connection.execute(
        "SELECT 1 FROM pg_catalog.pg_tables WHERE schemaname = %s AND tablename = 'correx_pushed'",
        (schema,),
    ).fetchone()
    return row is not None


_DERIVED = ("correx_activity", "correx_catalog", "correx_checkpoints", "correx_invocations",
            "correx_models", "correx_search", "correx_search_runs", "correx_session_heads",
            "correx_spent")  # fmt: skip
"""The tables derived from the events (the index, the catalog, the words): a push writes,
moves on and rewrites their rows, and a rebuild makes them again from the events."""

PUSH_PRIVILEGES: tuple[tuple[str, str], ...] = (
    ("correx_events", "SELECT"),
    ("correx_events", "INSERT"),
    ("correx_sessions", "SELECT"),
    ("correx_sessions", "INSERT"),
    ("correx_sessions", "UPDATE"),
    ("correx_settings", "SELECT"),
    ("correx_pushed", "SELECT"),
    ("correx_pushed", "INSERT"),
    ("correx_pushed", "UPDATE"),
    *((table, privilege) for table in _DERIVED for privilege in ("SELECT", "INSERT", "UPDATE",
                                                                  "DELETE")),
)  # fmt: skip
"""What a pushing role is granted, table by table: never UPDATE, DELETE or TRUNCATE of the
events, nor of the sessions' rows but their last sequence."""

READ_TABLES = (*_DERIVED, "correx_events", "correx_sessions", "correx_settings",
               "correx_pushed")  # fmt: skip
"""What a reading role may SELECT (and nothing else)."""


def grants(connection: Any, schema: str, *, pushers: list[str], readers: list[str]) -> None:
    """Grant each role in ``pushers`` what a push needs, and each in ``readers`` what the
    reading commands and ``serve`` need, on the schema's tables (in the caller's
    transaction; the roles must exist)."""
    from psycopg import sql  # noqa: PLC0415 - the optional extra

    schema_name = sql.Identifier(schema)
    for role in [*pushers, *readers]:
        connection.execute(
            sql.SQL("GRANT USAGE ON SCHEMA {} TO {}").format(schema_name, sql.Identifier(role))
        )
    for role in readers:
        for table in READ_TABLES:
            connection.execute(
                sql.SQL("GRANT SELECT ON {} TO {}").format(
                    sql.Identifier(schema, table), sql.Identifier(role)
                )
            )
    for role in pushers:
        by_table: dict[str, list[str]] = {}
        for table, privilege in PUSH_PRIVILEGES:
            by_table.setdefault(table, []).append(privilege)
        for table, privileges in by_table.items():
            columns = " (last_sequence)" if table == "correx_sessions" else ""
            for privilege in privileges:
                spelled = privilege + (columns if privilege == "UPDATE" else "")
                connection.execute(
                    sql.SQL(f"GRANT {spelled} ON {{}} TO {{}}").format(
                        sql.Identifier(schema, table), sql.Identifier(role)
                    )
                )
        connection.execute(
            sql.SQL("GRANT USAGE ON ALL SEQUENCES IN SCHEMA {} TO {}").format(
                schema_name, sql.Identifier(role)
            )
        )


def missing_to_push(connection: Any, schema: str) -> str | None:
    """The first privilege this role lacks to push to the schema (``"INSERT on
    correx_events"``), or ``None``."""
    for table, privilege in PUSH_PRIVILEGES:
        qualified = f'"{schema}".{table}'
        if privilege == "UPDATE" and table == "correx_sessions":
            row = connection.execute(
                "SELECT has_column_privilege(%s, 'last_sequence', 'UPDATE')", (qualified,)
            ).fetchone()
        else:
            row = connection.execute(
                "SELECT has_table_privilege(%s, %s)", (qualified, privilege)
            ).fetchone()
        if not row[0]:
            return f"{privilege} on {table}"
    return None
