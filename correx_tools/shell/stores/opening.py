"""Opening the store a SOURCE string or an address names: the one opener, for the command
and the library alike."""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

from .addresses import StoreAddress, address_of, redact_dsn
from .jsonl import JsonlEventLog
from .port import EventStore, StoreLayoutError
from .sqlite import SQLiteEventStore
from .sqlite.store import cannot_open


def open_source(
    source: str,
    *,
    create: bool = False,
    upgrade: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> EventStore:
    """The store ``source`` names: a ``.jsonl`` log, a SQLite file or a ``postgresql://`` URL.

    Without ``create`` (or ``upgrade``) the store is opened read-only: nothing
    is written or created (no file, no table), and what is not a store is a
    `StoreLayoutError` saying what was found. ``create`` makes a missing store;
    ``upgrade`` opens an existing one to write, upgrading an older layout in
    place and reporting ``progress(done, total)`` as it indexes its events.
    PostgreSQL needs the ``postgres`` extra (a `StoreLayoutError` says so) and
    a reachable server (``psycopg.Error`` otherwise).
    """
    address = address_of(source)
    writable = create or upgrade
    if address.kind != "postgres":
        path = Path(source)
        if path.is_dir():
            raise StoreLayoutError(f"{source}: is a directory, not an event store")
        if not create and not path.exists():
            raise StoreLayoutError(f"{source}: no such file")
        if create and not path.parent.is_dir():
            raise StoreLayoutError(f"{source}: the directory {str(path.parent)!r} does not exist")
    return open_address(address, read_only=not writable, upgrade=upgrade, progress=progress)


def open_address(
    address: StoreAddress,
    *,
    read_only: bool = False,
    upgrade: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> EventStore:
    """Open the store ``address`` names (read-only: writing and creating nothing).

    ``upgrade`` upgrades a database of an older layout in place, reporting
    ``progress(done, total)`` as it indexes its events.
    """
    match address.kind:
        case "sqlite":
            try:
                return SQLiteEventStore(
                    address.location, read_only=read_only, upgrade=upgrade, progress=progress
                )
            except sqlite3.DatabaseError as error:
                raise StoreLayoutError(cannot_open(address.location, error)) from None
        case "jsonl":
            return JsonlEventLog(address.location)
        case "postgres":
            try:
                from .postgres import PostgresEventStore  # noqa: PLC0415 - the optional extra
            except ImportError:
                raise StoreLayoutError(
                    f"{redact_dsn(address.location)}: PostgreSQL stores need psycopg: "
                    "pip install 'correx-tools[postgres]'"
                ) from None
            return PostgresEventStore(
                address.location,
                schema=address.schema,
                read_only=read_only,
                upgrade=upgrade,
                progress=progress,
            )
        case _:
            raise ValueError(f"unknown store kind {address.kind!r}")
