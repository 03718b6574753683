"""The SQLite store's time-travel index: written with the events, rebuilt, and read.

What the index holds and why is in `indexing`; the rule it rests on is in
`correx_tools.core.replay.stored_index`. This module is its SQL.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime

from ....core.lifecycle.events import REQUESTED_TYPE, StoredEvent
from ....core.replay.stored_index import (
    STATUS_CODES,
    STATUS_OF_CODE,
    InvocationState,
)
from ....core.tools.ids import SessionId
from ..codec.encoding import EncodedEvent
from ..codec.envelope import format_timestamp
from ..codec.rows import decode_row
from ..sql.indexing import (
    Head,
    IndexedGroup,
    claimed_columns,
    index_group,
    typed_columns,
)
from .layout import IDS_PER_QUERY

_REBUILD_BATCH = 5_000


# -- writing -----------------------------------------------------------------------


CLAIM = (
    "INSERT INTO invocations (invocation_id, session_id, sequence, status, requested_at, "
    "tool_name, tier) VALUES (?, ?, ?, 1, ?, ?, ?)"
)
"""Claims a Requested event's id (unique across sessions): its entry, status REQUESTED."""


def index_and_write(
    cursor: sqlite3.Cursor,
    session_id: str,
    events: list[StoredEvent],
    encoded: list[EncodedEvent],
    interval: int,
) -> None:
    """Write one session's events with their index, in the caller's transaction.

    A session whose index does not reach its last event (written by an older
    release, or changed outside this store) has it rebuilt first.
    """
    head = load_head(cursor, session_id)
    if head is None:
        head = rebuild(cursor, session_id, interval)
    group = index_group(
        session_id,
        events,
        encoded,
        head=head,
        lookup=lambda ids: invocation_states(cursor, ids),
        interval=interval,
    )
    _write(cursor, session_id, group)


def _write(cursor: sqlite3.Cursor, session_id: str, group: IndexedGroup) -> None:
    cursor.executemany(
        "INSERT INTO events (session_id, sequence, recorded_at, type, version, data, kind, "
        "invocation_id, label, code, effect, chain) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [
            (
                session_id,
                row.sequence,
                row.encoded.recorded_at,
                row.encoded.type,
                row.encoded.version,
                row.encoded.data,
                *row.columns,
                row.effect,
                row.chain,
            )
            for row in group.events
        ],
    )
    _apply_changes(cursor, session_id, group)
    save_head(cursor, session_id, group.head)


def _apply_changes(cursor: sqlite3.Cursor, session_id: str, group: IndexedGroup) -> None:
    times: dict[object, str] = {}

    def text(moment: datetime) -> str:
        # An append's events share one timestamp: formatted once.
        written = times.get(moment)
        if written is None:
            written = times[moment] = format_timestamp(moment)
        return written

    started = [
        (c.sequence, text(c.recorded_at), c.invocation_id) for c in group.changes if c.kind == 2
    ]
    ended = []
    for change in group.changes:
        if change.kind == 3:
            columns = typed_columns(change.event)
            ended.append(
                (
                    STATUS_CODES[change.status],
                    change.sequence,
                    text(change.recorded_at),
                    columns.label,
                    columns.code,
                    change.invocation_id,
                )
            )
    if started:
        cursor.executemany(
            "UPDATE invocations SET status = 2, started_seq = ?, started_at = ? "
            "WHERE invocation_id = ?",
            started,
        )
    if ended:
        cursor.executemany(
            "UPDATE invocations SET status = ?, ended_seq = ?, completed_at = ?, end_label = ?, "
            "end_code = ? WHERE invocation_id = ?",
            ended,
        )
    if group.checkpoints:
        cursor.executemany(
            "INSERT OR REPLACE INTO checkpoints (session_id, sequence, requested, started, "
            "completed, failed, rejected, refused, chain, seal) "
            "VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [(session_id, c.sequence, *c.counts, c.chain, c.seal) for c in group.checkpoints],
        )


def invocation_states(cursor: sqlite3.Cursor, ids: Iterable[str]) -> Mapping[str, InvocationState]:
    """The state of each of ``ids`` the store knows of (its session, status and request time)."""
    wanted = list(ids)
    found: dict[str, InvocationState] = {}
    for start in range(0, len(wanted), IDS_PER_QUERY):
        chunk = wanted[start : start + IDS_PER_QUERY]
        marks = ", ".join("?" * len(chunk))
        for invocation, session, status, requested_at in cursor.execute(
            "SELECT invocation_id, session_id, status, requested_at FROM invocations "
            f"WHERE invocation_id IN ({marks})",
            chunk,
        ):
            if status is not None:
                found[invocation] = InvocationState(
                    session, STATUS_OF_CODE[status], datetime.fromisoformat(requested_at)
                )
    return found


def load_head(cursor: sqlite3.Cursor, session_id: str) -> Head | None:
    """The session's index head, if it is there, fresh and reaches the session's last event."""
    row = cursor.execute(
        "SELECT indexed_through, requested, started, completed, failed, rejected, refused, "
        "chain, stale FROM session_heads WHERE session_id = ?",
        (session_id,),
    ).fetchone()
    last = last_sequence(cursor, session_id)
    if row is None:
        return Head() if last == 0 else None
    through, *counts, chain, stale = row
    if stale or through != last:
        return None
    if through and chain_at(cursor, session_id, through) != chain:
        return None
    return Head(through, counts, chain)


def save_head(cursor: sqlite3.Cursor, session_id: str, head: Head) -> None:
    """Write the session's head (fresh: it was just computed)."""
    cursor.execute(
        "INSERT OR REPLACE INTO session_heads (session_id, indexed_through, requested, started, "
        "completed, failed, rejected, refused, chain, stale) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, 0)",
        (session_id, head.indexed_through, *head.counts, head.chain),
    )


def last_sequence(cursor: sqlite3.Cursor, session_id: str) -> int:
    """The session's last sequence (0 for none)."""
    row = cursor.execute(
        "SELECT MAX(sequence) FROM events WHERE session_id = ?", (session_id,)
    ).fetchone()
    return int(row[0]) if row and row[0] is not None else 0


def chain_at(cursor: sqlite3.Cursor, session_id: str, sequence: int) -> int | None:
    """The chain value stored with one event, or None when there is no such event."""
    row = cursor.execute(
        "SELECT chain FROM events WHERE session_id = ? AND sequence = ?", (session_id, sequence)
    ).fetchone()
    return None if row is None else row[0]


# -- rebuilding -------------------------------------------------------------------


def rebuild(
    cursor: sqlite3.Cursor,
    session_id: str,
    interval: int,
    progress: Callable[[int], None] | None = None,
) -> Head:
    """Index one session again from its events alone, in the caller's transaction.

    Every event is decoded in full (strictly) on the way: a damaged one stops
    the rebuild with a `StoreReadError` naming it.
    """
    from ..codec.encoding import encode_event  # noqa: PLC0415 - only a rebuild re-encodes

    cursor.execute("DELETE FROM checkpoints WHERE session_id = ?", (session_id,))
    cursor.execute("DELETE FROM session_heads WHERE session_id = ?", (session_id,))
    cursor.execute(
        "UPDATE invocations SET status = NULL, requested_at = NULL, started_seq = NULL, "
        "ended_seq = NULL, tool_name = NULL, tier = NULL, started_at = NULL, "
        "completed_at = NULL, end_label = NULL, end_code = NULL WHERE session_id = ?",
        (session_id,),
    )
    head = Head()
    after = 0
    where = "SQLite event store"
    while True:
        rows = cursor.execute(
            "SELECT sequence, recorded_at, type, version, data FROM events "
            "WHERE session_id = ? AND sequence > ? ORDER BY sequence LIMIT ?",
            (session_id, after, _REBUILD_BATCH),
        ).fetchall()
        if not rows:
            break
        events = [decode_row(where, SessionId(session_id), row) for row in rows]
        encoded = [encode_event(stored) for stored in events]
        cursor.executemany(
            "UPDATE invocations SET status = 1, requested_at = ?, tool_name = ?, tier = ? "
            "WHERE invocation_id = ? AND session_id = ? AND sequence = ?",
            [
                (envelope.recorded_at, *claimed_columns(stored.event), session_id, stored.sequence)
                for stored, envelope in zip(events, encoded, strict=True)
                if envelope.type == REQUESTED_TYPE
            ],
        )
        group = index_group(
            session_id,
            events,
            encoded,
            head=head,
            lookup=lambda ids: invocation_states(cursor, ids),
            interval=interval,
        )
        cursor.executemany(
            "UPDATE events SET kind = ?, invocation_id = ?, label = ?, code = ?, effect = ?, "
            "chain = ? WHERE session_id = ? AND sequence = ?",
            [
                (*row.columns, row.effect, row.chain, session_id, row.sequence)
                for row in group.events
            ],
        )
        _apply_changes(cursor, session_id, group)
        head = group.head
        after = rows[-1][0]
        if progress is not None:
            progress(len(rows))
    save_head(cursor, session_id, head)
    return head


# -- reading ---------------------------------------------------------------------
