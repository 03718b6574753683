"""Builders for every EventStore implementation, shared by the store tests."""

from __future__ import annotations

import uuid
from pathlib import Path

import pytest

from correx_tools import InMemoryEventStore, JsonlEventLog, PostgresEventStore, SQLiteEventStore
from correx_tools.shell.stores.port import EventStore

KINDS = ("jsonl", "memory", "postgres", "sqlite")


def make_store(kind: str, directory: Path, request: pytest.FixtureRequest) -> EventStore:
    """A new, empty store of ``kind`` (PostgreSQL in a schema of its own)."""
    match kind:
        case "memory":
            return InMemoryEventStore()
        case "sqlite":
            return SQLiteEventStore(directory / "events.sqlite")
        case "jsonl":
            return JsonlEventLog(directory / "events.jsonl")
        case "postgres":
            dsn = request.getfixturevalue("postgres_dsn")
            schema = request.getfixturevalue("postgres_schema")
            return PostgresEventStore(dsn, schema=schema)
        case _:
            raise ValueError(kind)


def postgres_index(dsn: str, schema: str, name: str, *, drop: bool = False) -> bool:
    """Whether the schema holds the index ``name`` (its name with the store's prefix);
    with ``drop``, drop it first (as a store made before the index would be)."""
    import psycopg  # noqa: PLC0415 - only PostgreSQL tests need it

    with psycopg.connect(dsn, autocommit=True) as connection:
        if drop:
            connection.execute(f'DROP INDEX "{schema}".{name}')
        row = connection.execute(
            "SELECT 1 FROM pg_indexes WHERE schemaname = %s AND indexname = %s", (schema, name)
        ).fetchone()
    return row is not None


def fresh_postgres(dsn: str) -> tuple[PostgresEventStore, str]:
    """A store in a new schema (for tests that make many stores); the caller drops it."""
    schema = f"t_{uuid.uuid4().hex[:16]}"
    return PostgresEventStore(dsn, schema=schema), schema
