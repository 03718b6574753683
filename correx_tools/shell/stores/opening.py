"""Opening the store an address names."""

from __future__ import annotations

from collections.abc import Callable

from .addresses import StoreAddress
from .jsonl import JsonlEventLog
from .port import EventStore
from .sqlite import SQLiteEventStore


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
            return SQLiteEventStore(
                address.location, read_only=read_only, upgrade=upgrade, progress=progress
            )
        case "jsonl":
            return JsonlEventLog(address.location)
        case "postgres":
            from .postgres import PostgresEventStore  # noqa: PLC0415 - the optional extra

            return PostgresEventStore(
                address.location,
                schema=address.schema,
                read_only=read_only,
                upgrade=upgrade,
                progress=progress,
            )
        case _:
            raise ValueError(f"unknown store kind {address.kind!r}")
