"""Naming a store by a string: a SQLite file, a ``.jsonl`` log or a ``postgresql://`` URL."""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import final

from .jsonl_log import JsonlEventLog
from .sqlite_store import SQLiteEventStore
from .store import EventStore

POSTGRES_SCHEMES = ("postgresql://", "postgres://")


@final
@dataclass(frozen=True, slots=True)
class StoreAddress:
    """Enough to open a store again, in another process: its kind, location and schema."""

    kind: str
    location: str
    schema: str = "public"

    def open(self, *, read_only: bool = False) -> EventStore:
        """Open the store this address names (read-only: writing and creating nothing)."""
        match self.kind:
            case "sqlite":
                return SQLiteEventStore(self.location, read_only=read_only)
            case "jsonl":
                return JsonlEventLog(self.location)
            case "postgres":
                from .postgres_store import PostgresEventStore  # noqa: PLC0415 - optional extra

                return PostgresEventStore(self.location, schema=self.schema, read_only=read_only)
            case _:
                raise ValueError(f"unknown store kind {self.kind!r}")


def address_of(source: str) -> StoreAddress:
    """The address a SOURCE string names (no I/O)."""
    if source.startswith(POSTGRES_SCHEMES):
        return StoreAddress("postgres", source)
    if Path(source).suffix == ".jsonl":
        return StoreAddress("jsonl", source)
    return StoreAddress("sqlite", source)


def address_of_store(store: EventStore) -> StoreAddress | None:
    """The address of an open store, or ``None`` for one that lives only in memory."""
    if isinstance(store, SQLiteEventStore):
        return StoreAddress("sqlite", str(store.path))
    if isinstance(store, JsonlEventLog):
        return StoreAddress("jsonl", str(store.path))
    from .postgres_store import PostgresEventStore  # noqa: PLC0415 - optional extra

    if isinstance(store, PostgresEventStore):
        return StoreAddress("postgres", store.dsn, store.schema)
    return None


def redact_dsn(dsn: str) -> str:
    """``dsn`` with any password masked, fit for a message.

    >>> redact_dsn("postgresql://app:s3cret@db:5432/agents")
    'postgresql://app:***@db:5432/agents'
    >>> redact_dsn("host=db password=s3cret dbname=agents")
    'host=db password=*** dbname=agents'
    """
    masked = re.sub(r"(password\s*=\s*)('[^']*'|\S+)", r"\1***", dsn)
    return re.sub(r"(://[^:/@]*:)[^@]*@", r"\1***@", masked)
