"""Rows for the seals a read holds every event to: what it costs that no edited event is
handed on (`shell/stores/sql/event_reads.py`, `said.py`).

An event is handed on only once its chain vouches for it. On a fresh index that was
already the read's own check (one CRC-32 a row, over its JSON and columns). New are:

* a session whose index is stale (marked by the triggers, or refused a rebuild): each row
  decoded from its JSON by the strict rules was handed on unchecked; now its chain is made
  again first;
* the conversation's read, whose events are not consecutive: each row is read with the
  chain of the event before it (a join) and held to its own.

Each row is set against the same read without the check, in the same run (the old code's
path: the same query, rows decoded as they are). One store, one session of tool calls with
a prompt, a reply and a usage record every twentieth call.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

from correx_tools import SessionId, SQLiteEventStore, StoredEvent
from correx_tools.core.lifecycle.conversation import (
    AssistantText,
    Prompt,
    TokenUsage,
    Usage,
    conversation_event,
)
from correx_tools.shell.stores.codec.rows import decode_row
from correx_tools.shell.stores.sql.layout import SAID

from .sessions import session
from .table import Row, timed

TARGET = 1.25
"""The most a sealed read may take, as a multiple of the same read unchecked."""


def _with_conversation(events: list[StoredEvent]) -> Iterator[object]:
    """The session's events with a prompt, a reply and a usage record every twentieth
    call (the benchmark's sessions have no conversation of their own)."""
    for n, stored in enumerate(events):
        if n % 60 == 0:
            yield conversation_event(Prompt(text=f"step {n}: run the next check"))
            yield conversation_event(AssistantText(text="Running it now.", model="m"))
            yield conversation_event(Usage(usage=TokenUsage(input=1_200, output=80), model="m"))
        yield stored.event


def _unchecked(
    connection: sqlite3.Connection, path: Path, session_id: SessionId, only: str | None
) -> Callable[[], int]:
    """The read as it was before the seals: the same query, each row decoded by the strict
    rules and handed on."""
    condition = "" if only is None else f" AND {only}"
    query = (
        "SELECT sequence, recorded_at, type, version, data FROM events "
        f"WHERE session_id = ? AND sequence > ?{condition} ORDER BY sequence LIMIT 5000"
    )

    def read() -> int:
        count, last = 0, 0
        while True:
            rows = connection.execute(query, (session_id, last)).fetchall()
            for row in rows:
                decode_row(str(path), session_id, row)
            count += len(rows)
            if len(rows) < 5_000:
                return count
            last = rows[-1][0]

    return read


def seal_rows(calls_events: int, repeat: int, directory: Path) -> list[Row]:
    """The stale read and the conversation's read, sealed and unchecked."""
    events = session(calls_events)
    session_id = events[0].session_id
    path = directory / "sealed.sqlite"
    with SQLiteEventStore(path) as store:
        store.append(session_id, list(_with_conversation(events)), expected_sequence=0).unwrap()
        total = store.last_sequence(session_id)
    with sqlite3.connect(path) as connection:  # as the triggers leave it after a hand edit
        connection.execute("UPDATE session_heads SET stale = 1")
    connection.close()

    store = SQLiteEventStore(path, read_only=True)  # opened once: the reads are timed
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    said = 3 * len(range(0, len(events), 60))
    rows = []
    try:
        for name, ours, theirs, size in (
            (
                "SQLite read of a stale index: each event held to its chain, decoded from JSON",
                lambda: sum(1 for _ in store.read(session_id)),
                _unchecked(connection, path, session_id, None),
                total,
            ),
            (
                "SQLite conversation read: each event held to its chain (the one before it joined)",
                lambda: sum(1 for _ in store.read_conversation(session_id)),
                _unchecked(connection, path, session_id, SAID),
                said,
            ),
        ):
            assert ours() == theirs() == size
            seconds, unchecked = timed(ours, repeat), timed(theirs, repeat)
            ratio = seconds / unchecked
            rows.append(
                Row(
                    name, f"{size:,}", f"{seconds:.3f} s",
                    f"{unchecked:.3f} s unchecked (the read before the seals)",
                    ratio, f"<= {TARGET:g}x", ratio <= TARGET,
                )
            )  # fmt: skip
    finally:
        store.close()
        connection.close()
    return rows
