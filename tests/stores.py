"""Builders for every EventStore implementation, shared by the store tests."""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path

from correx_tools import InMemoryEventStore, JsonlEventLog, SQLiteEventStore
from correx_tools.shell.store import EventStore

StoreFactory = Callable[[Path], EventStore]

FACTORIES: dict[str, StoreFactory] = {
    "memory": lambda directory: InMemoryEventStore(),
    "sqlite": lambda directory: SQLiteEventStore(directory / "events.sqlite"),
    "jsonl": lambda directory: JsonlEventLog(directory / "events.jsonl"),
}
