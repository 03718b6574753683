"""Reading the SQLite store's time-travel index: the entries, counts and refusals it holds.

The writing side is in `sqlite_index`; what the columns mean is in `indexing`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from datetime import datetime
from typing import Any, final

from ....core.lifecycle.events import StoredEvent
from ....core.replay.stored_index import (
    Counts,
    InvocationEntry,
    count_delta,
)
from ....core.tools.ids import SessionId
from ..codec.rows import decode_row
from ..port import StaleIndex
from ..sql.indexing import (
    entry_of,
    seal_of,
)
from .index import chain_at
from .layout import IDS_PER_QUERY

_NO_LIMIT = -1  # within SQLite's limit on host parameters, with room to spare


_ENTRY_QUERY = """
SELECT i.invocation_id, i.sequence, i.requested_at, i.tool_name, i.tier, r.data, r.kind,
       r.invocation_id, i.started_seq, i.started_at, i.ended_seq, i.completed_at, i.status,
       i.end_label, i.end_code, e.data, e.kind, e.invocation_id
FROM invocations i
JOIN events r ON r.session_id = i.session_id AND r.sequence = i.sequence
LEFT JOIN events e ON i.status = 3 AND e.session_id = i.session_id AND e.sequence = i.ended_seq
WHERE {where}
ORDER BY i.sequence {order} {limit}
"""


_when = datetime.fromisoformat


def _by_request(entry: InvocationEntry) -> int:
    return entry.requested_seq


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
            if seal != seal_of(session, start, counts, chain) or chain != chain_at(
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
    ) -> Iterator[InvocationEntry]:
        query = _ENTRY_QUERY.format(
            where=where,
            order="ASC" if newest is None else "DESC",
            limit="" if newest is None else f"LIMIT {int(newest)}",
        )
        for row in self._cursor.execute(query, parameters):
            yield entry_of(row, _when)

    def entries(self, *, through: int, last: int | None = None) -> list[InvocationEntry]:
        """The entries of the invocations requested by ``through``, in request order."""
        found = list(
            self._entries(
                "i.session_id = ? AND i.sequence <= ?", (self._session, through), newest=last
            )
        )
        if last is not None:
            found.reverse()
        return found

    def _by_ids(self, ids: list[str]) -> list[InvocationEntry]:
        # By the primary key: "+" keeps SQLite from walking the session's index instead.
        found: list[InvocationEntry] = []
        for start in range(0, len(ids), IDS_PER_QUERY):
            chunk = ids[start : start + IDS_PER_QUERY]
            marks = ", ".join("?" * len(chunk))
            found += self._entries(
                f"i.invocation_id IN ({marks}) AND +i.session_id = ?", (*chunk, self._session)
            )
        found.sort(key=_by_request)
        return found

    def entry(self, invocation_id: str) -> InvocationEntry | None:
        """The entry of one invocation of this session."""
        found = self._by_ids([invocation_id])
        return found[0] if found else None

    def changed(self, a: int, b: int) -> list[InvocationEntry]:
        """The entries with an applied event in ``(a, b]``."""
        return self._by_ids(
            [
                row[0]
                for row in self._cursor.execute(
                    "SELECT DISTINCT invocation_id FROM events WHERE session_id = ? "
                    "AND sequence > ? AND sequence <= ? AND effect > 0",
                    (self._session, a, b),
                )
            ]
        )

    def open_entries(self, through: int, count: int | None = None) -> list[InvocationEntry]:
        """The entries still open right after ``through`` (``count`` of them, if known).

        Walked back from ``through``: invocations open at a point were mostly
        requested shortly before it, and knowing how many there are ends the walk.
        """
        if count == 0:
            return []
        if through >= self.last_sequence:
            where = "i.session_id = ? AND i.ended_seq IS NULL"
            return list(self._entries(where, (self._session,)))
        found: list[InvocationEntry] = []
        for entry in self._entries(
            "i.session_id = ? AND i.sequence <= ?", (self._session, through), newest=_NO_LIMIT
        ):
            if entry.ended_seq is None or entry.ended_seq > through:
                found.append(entry)
                if len(found) == count:
                    break
        found.reverse()
        return found

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
