"""What a push reads of the store it sends from, in one read snapshot: each session's last
sequence and the chain value there (its *digest*), the chain at any sequence, and its
events after a sequence, a run at a time.

A session's chain value at a sequence (`chains`) continues a CRC over every event up to
it: two copies of a session whose chain agrees at a sequence hold the same events up to
there (but for a CRC's collisions), so the digest of what was pushed tells, from one
row, whether the session only grew since.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass
from typing import final

from ....core.lifecycle.events import StoredEvent
from ....core.tools.ids import SessionId
from ..codec.rows import decode_written_row
from .dialect import Cursor, Dialect


@final
@dataclass(frozen=True, slots=True)
class Head:
    """One session as the sending store holds it: its last sequence and the digest there
    (``None`` when its index does not reach its last event: it cannot be compared)."""

    last: int
    digest: int | None


@final
class SourceView:
    """The sending store in one read snapshot (`SqlEventStore.source_view`)."""

    def __init__(self, d: Dialect, cursor: Cursor) -> None:
        self._d, self._cursor = d, cursor

    def heads(self) -> dict[str, Head]:
        """Every catalogued session, by id."""
        d = self._d
        rows = self._cursor.execute(
            d.sql(
                "SELECT c.name, c.events, h.indexed_through, h.chain, h.stale FROM {catalog} c "
                "LEFT JOIN {heads} h ON h.{session} = c.{session}"
            )
        ).fetchall()
        found: dict[str, Head] = {}
        for name, events, through, chain, stale in rows:
            fresh = through is not None and not stale and int(through) == int(events)
            found[d.text(name) or ""] = Head(int(events), int(chain) if fresh else None)
        return found

    def digest(self, session_id: str, sequence: int) -> int | None:
        """The session's chain value at ``sequence`` (``None``: no such event, or one not
        indexed)."""
        d = self._d
        row = self._cursor.execute(
            d.sql("SELECT chain FROM {events} WHERE {session} = ? AND sequence = ?"),
            (d.session_key(session_id), sequence),
        ).fetchone()
        return None if row is None or row[0] is None else int(row[0])

    def runs(
        self, session_id: str, after: int, through: int, size: int
    ) -> Iterator[list[StoredEvent]]:
        """The session's events after ``after`` up to ``through``, each decoded from its own
        JSON, at most ``size`` at a time."""
        d, session = self._d, SessionId(session_id)
        query = d.sql(
            "SELECT sequence, recorded_at, type, version, data FROM {events} "
            "WHERE {session} = ? AND sequence > ? AND sequence <= ? ORDER BY sequence LIMIT ?"
        )
        key = d.session_key(session_id)
        while rows := self._cursor.execute(query, (key, after, through, size)).fetchall():
            yield [decode_written_row(d.where, session, tuple(row)) for row in rows]
            after = int(rows[-1][0])
