"""The SQLite store's time-travel index: written with the events, rebuilt, and read.

What the index holds and why is in :mod:`.indexing`; the rule it rests on is in
:mod:`correx_tools.core.replay.stored_index`. This module is its SQL.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterable, Mapping
from datetime import datetime
from typing import Any, final

from ...core.lifecycle.events import StoredEvent
from ...core.replay.stored_index import (
    STATUS_CODES,
    STATUS_OF_CODE,
    Counts,
    InvocationEntry,
    InvocationState,
    count_delta,
)
from ...core.tools.ids import SessionId
from .encoding import EncodedEvent
from .indexing import (
    Head,
    IndexedGroup,
    entry_of,
    index_group,
    seal_of,
)
from .port import StaleIndex
from .rows import decode_row

_IDS_PER_QUERY = 500  # within SQLite's limit on host parameters, with room to spare
_REBUILD_BATCH = 5_000

_ENTRY_QUERY = """
SELECT i.invocation_id, i.sequence, r.recorded_at, r.label, r.code, r.data, r.kind,
       r.invocation_id, i.started_seq, s.recorded_at, s.kind, s.invocation_id,
       i.ended_seq, e.recorded_at, e.kind, e.invocation_id, e.label, e.code, e.data
FROM invocations i
JOIN events r ON r.session_id = i.session_id AND r.sequence = i.sequence
LEFT JOIN events s ON s.session_id = i.session_id AND s.sequence = i.started_seq
LEFT JOIN events e ON e.session_id = i.session_id AND e.sequence = i.ended_seq
WHERE i.session_id = ? AND {where}
ORDER BY i.sequence {order} {limit}
"""


def _when(text: str) -> datetime:
    return datetime.fromisoformat(text)


# -- writing -----------------------------------------------------------------------


CLAIM = (
    "INSERT INTO invocations (invocation_id, session_id, sequence, status, requested_at) "
    "VALUES (?, ?, ?, 1, ?)"
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
    started = [(c.sequence, c.invocation_id) for c in group.changes if c.kind == 2]
    ended = [
        (STATUS_CODES[c.status], c.sequence, c.invocation_id) for c in group.changes if c.kind == 3
    ]
    if started:
        cursor.executemany(
            "UPDATE invocations SET status = 2, started_seq = ? WHERE invocation_id = ?", started
        )
    if ended:
        cursor.executemany(
            "UPDATE invocations SET status = ?, ended_seq = ? WHERE invocation_id = ?", ended
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
    for start in range(0, len(wanted), _IDS_PER_QUERY):
        chunk = wanted[start : start + _IDS_PER_QUERY]
        marks = ", ".join("?" * len(chunk))
        for invocation, session, status, requested_at in cursor.execute(
            "SELECT invocation_id, session_id, status, requested_at FROM invocations "
            f"WHERE invocation_id IN ({marks})",
            chunk,
        ):
            if status is not None:
                found[invocation] = InvocationState(
                    session, STATUS_OF_CODE[status], _when(requested_at)
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
    if through and _chain_at(cursor, session_id, through) != chain:
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


def _chain_at(cursor: sqlite3.Cursor, session_id: str, sequence: int) -> int | None:
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
    the rebuild with a :class:`~.port.StoreReadError` naming it.
    """
    from .encoding import encode_event  # noqa: PLC0415 - only a rebuild re-encodes

    cursor.execute("DELETE FROM checkpoints WHERE session_id = ?", (session_id,))
    cursor.execute("DELETE FROM session_heads WHERE session_id = ?", (session_id,))
    cursor.execute(
        "UPDATE invocations SET status = NULL, requested_at = NULL, started_seq = NULL, "
        "ended_seq = NULL WHERE session_id = ?",
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
            "UPDATE invocations SET status = 1, requested_at = ? "
            "WHERE invocation_id = ? AND session_id = ? AND sequence = ?",
            [
                (envelope.recorded_at, stored.event.invocation_id, session_id, stored.sequence)  # type: ignore[attr-defined]
                for stored, envelope in zip(events, encoded, strict=True)
                if envelope.type == "tool.invocation.requested"
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


@final
class SQLiteSessionIndex:
    """One session's index read through one cursor, inside the caller's read transaction."""

    __slots__ = ("_cursor", "_session", "last_sequence")

    def __init__(self, cursor: sqlite3.Cursor, session_id: str, last: int) -> None:
        self._cursor = cursor
        self._session = session_id
        self.last_sequence = last

    def counts_at(self, sequence: int) -> Counts:
        """Counters right after ``sequence``: the checkpoint before it, moved on by the effects."""
        cursor, session = self._cursor, self._session
        row = cursor.execute(
            "SELECT sequence, requested, started, completed, failed, rejected, refused, chain, "
            "seal FROM checkpoints WHERE session_id = ? AND sequence <= ? "
            "ORDER BY sequence DESC LIMIT 1",
            (session, sequence),
        ).fetchone()
        counts: Counts = [0] * 6
        start = 0
        if row is not None:
            start, *stored, chain, seal = row
            counts = list(stored)
            if seal != seal_of(session, start, counts, chain) or chain != _chain_at(
                cursor, session, start
            ):
                raise StaleIndex(f"the checkpoint at sequence {start} does not match its events")
        for (effect,) in cursor.execute(
            "SELECT effect FROM events WHERE session_id = ? AND sequence > ? AND sequence <= ?",
            (session, start, sequence),
        ):
            if effect is None:
                raise StaleIndex("an event in between was written without the index")
            count_delta(counts, effect)
        return counts

    def _entries(
        self, where: str, parameters: tuple[Any, ...], *, newest: int | None = None
    ) -> list[InvocationEntry]:
        query = _ENTRY_QUERY.format(
            where=where,
            order="ASC" if newest is None else "DESC",
            limit="" if newest is None else f"LIMIT {int(newest)}",
        )
        found = [
            entry_of(row, _when)
            for row in self._cursor.execute(query, (self._session, *parameters))
        ]
        if newest is not None:
            found.reverse()
        return found

    def entries(self, *, through: int, last: int | None = None) -> list[InvocationEntry]:
        """The entries of the invocations requested by ``through``, in request order."""
        return self._entries("i.sequence <= ?", (through,), newest=last)

    def entry(self, invocation_id: str) -> InvocationEntry | None:
        """The entry of one invocation of this session."""
        found = self._entries("i.invocation_id = ?", (invocation_id,))
        return found[0] if found else None

    def changed(self, a: int, b: int) -> list[InvocationEntry]:
        """The entries with an applied event in ``(a, b]``."""
        ids = [
            row[0]
            for row in self._cursor.execute(
                "SELECT DISTINCT invocation_id FROM events WHERE session_id = ? "
                "AND sequence > ? AND sequence <= ? AND effect > 0",
                (self._session, a, b),
            )
        ]
        found: list[InvocationEntry] = []
        for start in range(0, len(ids), _IDS_PER_QUERY):
            chunk = ids[start : start + _IDS_PER_QUERY]
            marks = ", ".join("?" * len(chunk))
            found += self._entries(f"i.invocation_id IN ({marks})", tuple(chunk))
        found.sort(key=lambda entry: entry.requested_seq)
        return found

    def open_entries(self, through: int) -> list[InvocationEntry]:
        """The entries still open right after ``through``."""
        if through >= self.last_sequence:
            return self._entries("i.ended_seq IS NULL", ())
        return self._entries(
            "i.sequence <= ? AND (i.ended_seq IS NULL OR i.ended_seq > ?)", (through, through)
        )

    def refused(
        self, *, through: int, limit: int | None = None
    ) -> list[tuple[StoredEvent, InvocationEntry | None]]:
        """The refused events by ``through``, with their invocations' entries."""
        rows = self._cursor.execute(
            "SELECT sequence, recorded_at, type, version, data FROM events "
            "WHERE session_id = ? AND effect < 0 AND sequence <= ? ORDER BY sequence LIMIT ?",
            (self._session, through, -1 if limit is None else limit),
        ).fetchall()
        found = []
        for row in rows:
            stored = decode_row("SQLite event store", SessionId(self._session), row)
            invocation = getattr(stored.event, "invocation_id", None)
            found.append((stored, None if invocation is None else self.entry(invocation)))
        return found
