"""The tables `export --to parquet|csv` writes, column by column: the schema any engine
reads them by (docs/deployment.md prints it; every file carries its version).

Version 1:

* ``sessions/``: a row per session (its catalog row: where, who, what, when, how much);
* ``calls/``: a row per tool call (each from its events: asked, started, ended; its share of
  the tokens of the message that asked for it, `spending`), its arguments and output as
  masked JSON text;
* ``events/`` (``--events``): a row per event, its data as masked JSON text.

Every table is partitioned by the day its session began (UTC; ``day=none`` for a session
whose transcript records no time), as Hive lays partitions out (``day=YYYY-MM-DD/``), so
that DuckDB, Spark, polars and pandas read a folder as one table with a ``day`` column,
and a session's rows are in one partition. Times are UTC instants (microseconds); tokens
and counts are integers; a value not recorded is null, never 0.
"""

from __future__ import annotations

from typing import Literal

SCHEMA_VERSION = 1
"""The version of the tables' schema: a column added keeps it, a column changed or gone
moves it on."""

Kind = Literal["text", "integer", "time", "number", "flag"]

IDENTITY: tuple[tuple[str, Kind, str], ...] = (
    ("session_id", "text", "the session's id (MACHINE/ID in a team's store)"),
    ("machine", "text", "the machine it was pushed from (null outside a team's store)"),
    ("user", "text", "who pushed it (null outside a team's store)"),
    ("agent", "text", "the agent whose transcript it is (null: recorded by this library)"),
    ("project", "text", "the working directory its transcript records, masked"),
)
"""The columns each table begins with: whose and where the row's session is."""

SESSIONS: tuple[tuple[str, Kind, str], ...] = (
    *IDENTITY,
    ("title", "text", "the agent's title, else the first prompt's first line, masked"),
    ("models", "text", "the models it used, in the order first seen, as a JSON array"),
    ("started", "time", "its first event's time"),
    ("ended", "time", "its last event's time"),
    ("events", "integer", "events"),
    ("calls", "integer", "tool calls asked for"),
    ("completed", "integer", "calls completed"),
    ("failed", "integer", "calls failed"),
    ("rejected", "integer", "calls rejected"),
    ("open", "integer", "calls not ended"),
    ("exited_nonzero", "integer", "completed calls whose exit code was not 0"),
    ("input_tokens", "integer", "tokens in (null: none recorded)"),
    ("output_tokens", "integer", "tokens out"),
    ("cache_read_tokens", "integer", "tokens read from the cache"),
    ("cache_write_tokens", "integer", "tokens written to the cache"),
    ("cost", "number", "its cost in US dollars at the prices used (null: a model unpriced)"),
)

CALLS: tuple[tuple[str, Kind, str], ...] = (
    *IDENTITY,
    ("invocation_id", "text", "the call's id"),
    ("tool", "text", "the tool's name"),
    ("status", "text", "requested, started, completed, failed or rejected"),
    ("exit_code", "integer", "a completed call's exit code (null: not recorded or not ended)"),
    ("requested_at", "time", "when it was asked for"),
    ("started_at", "time", "when it started (null: never started)"),
    ("ended_at", "time", "when it completed, failed or was rejected"),
    ("queued_ms", "number", "from asked to started, in milliseconds"),
    ("ran_ms", "number", "from started to ended, in milliseconds (null: not known)"),
    ("input_tokens", "integer", "its share of the asking message's tokens in (null: none)"),
    ("output_tokens", "integer", "its share of the tokens out"),
    ("cache_read_tokens", "integer", "its share of the tokens read from the cache"),
    ("cache_write_tokens", "integer", "its share of the tokens written to the cache"),
    ("cost", "number", "its share's cost in US dollars (null: unpriced or no tokens)"),
    ("reason", "text", "why it failed or was rejected, masked"),
    ("arguments", "text", "its arguments as JSON, masked and cut"),
    ("output", "text", "a completed call's output as JSON, masked and cut"),
)

EVENTS: tuple[tuple[str, Kind, str], ...] = (
    *IDENTITY,
    ("sequence", "integer", "the event's place in its session, from 1"),
    ("recorded_at", "time", "when it was recorded"),
    ("type", "text", "its type tag (tool.invocation.requested, conversation.prompt, ...)"),
    ("version", "integer", "its type's version"),
    ("data", "text", "its data as JSON, masked and cut"),
)

TABLES: dict[str, tuple[tuple[str, Kind, str], ...]] = {
    "sessions": SESSIONS,
    "calls": CALLS,
    "events": EVENTS,
}
"""Each table's columns, in order: name, kind, what it holds."""


def described() -> dict[str, object]:
    """The schema as the ``schema.json`` beside the tables says it."""
    return {
        "schema_version": SCHEMA_VERSION,
        "partitioned_by": "day: the day (UTC) the row's session began, or none",
        "tables": {
            name: [{"name": column, "kind": kind, "holds": holds} for column, kind, holds in rows]
            for name, rows in TABLES.items()
        },
    }
