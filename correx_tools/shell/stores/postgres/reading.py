"""Reading a PostgreSQL session's index (entries, counters, refusals) in one snapshot."""

from __future__ import annotations

from collections.abc import Callable, Sequence
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
from ..sql.indexing import entry_of, seal_of
from .index import as_when, text_of
from .layout import id_key

_ENTRY_QUERY = """
SELECT i.invocation_id, i.sequence, i.requested_at, i.tool_name, i.tier, r.data, r.kind,
       r.invocation_id, i.started_seq, i.started_at, i.ended_seq, i.completed_at, i.status,
       i.end_label, i.end_code, e.data, e.kind, e.invocation_id
FROM (
    SELECT * FROM {{schema}}.correx_invocations i
    WHERE i.session_key = %s AND {where}
    ORDER BY i.sequence {order} {limit}
) i
JOIN {{schema}}.correx_events r ON r.session_key = i.session_key AND r.sequence = i.sequence
LEFT JOIN {{schema}}.correx_events e
    ON i.status = 3 AND e.session_key = i.session_key AND e.sequence = i.ended_seq
ORDER BY i.sequence {order}
"""
# The invocations are chosen (and limited) before the joins: joined first, the planner
# may merge the whole session's events to keep the last twenty calls before a point.


_TEXT_COLUMNS = (0, 3, 7, 13, 17)  # ids, the tool and the end's label, kept as bytes


def _entry(row: Sequence[Any]) -> InvocationEntry:
    values = list(row)
    for column in _TEXT_COLUMNS:
        values[column] = text_of(values[column])
    return entry_of(values, as_when)


@final
class PostgresSessionIndex:
    """One session's index read on one connection, inside the caller's read transaction."""

    __slots__ = ("_connection", "_key", "_q", "_session", "last_sequence")

    def __init__(
        self, connection: Any, compose: Callable[[str], Any], session_id: str, last: int
    ) -> None:
        self._connection = connection
        self._q = compose
        self._session = session_id
        self._key = id_key(session_id)
        self.last_sequence = last

    def counts_at(self, sequence: int) -> Counts:
        """Counters right after ``sequence``: the checkpoint before it, moved on by the effects."""
        row = self._connection.execute(
            self._q(
                "SELECT sequence, requested, started, completed, failed, rejected, refused, "
                "chain, seal FROM {schema}.correx_checkpoints WHERE session_key = %s "
                "AND sequence <= %s ORDER BY sequence DESC LIMIT 1"
            ),
            (self._key, sequence),
        ).fetchone()
        counts: Counts = [0] * 6
        start = 0
        if row is not None:
            start, *stored, chain, seal = row
            counts = list(stored)
            at = self._connection.execute(
                self._q(
                    "SELECT chain FROM {schema}.correx_events "
                    "WHERE session_key = %s AND sequence = %s"
                ),
                (self._key, start),
            ).fetchone()
            if seal != seal_of(self._session, start, counts, chain) or (
                at is None or at[0] is None or at[0] != chain
            ):
                raise StaleIndex(f"the checkpoint at sequence {start} does not match its events")
        for (effect,) in self._connection.execute(
            self._q(
                "SELECT effect FROM {schema}.correx_events WHERE session_key = %s "
                "AND sequence > %s AND sequence <= %s"
            ),
            (self._key, start, sequence),
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
            _entry(row)
            for row in self._connection.execute(self._q(query), (self._key, *parameters))
        ]
        if newest is not None:
            found.reverse()
        return found

    def entries(self, *, through: int, last: int | None = None) -> list[InvocationEntry]:
        """The entries of the invocations requested by ``through``, in request order."""
        return self._entries("i.sequence <= %s", (through,), newest=last)

    def entry(self, invocation_id: str) -> InvocationEntry | None:
        """The entry of one invocation of this session."""
        found = self._entries("i.invocation_key = %s", (id_key(invocation_id),))
        return found[0] if found else None

    def changed(self, a: int, b: int) -> list[InvocationEntry]:
        """The entries with an applied event in ``(a, b]``."""
        ids = [
            bytes(row[0]).decode("utf-8")
            for row in self._connection.execute(
                self._q(
                    "SELECT DISTINCT invocation_id FROM {schema}.correx_events "
                    "WHERE session_key = %s AND sequence > %s AND sequence <= %s AND effect > 0"
                ),
                (self._key, a, b),
            )
        ]
        if not ids:
            return []
        return self._entries("i.invocation_key = ANY(%s)", ([id_key(i) for i in ids],))

    def open_entries(self, through: int, count: int | None = None) -> list[InvocationEntry]:
        """The entries still open right after ``through`` (``count`` of them, if known),
        walked back from ``through`` (as `sqlite_reading.SQLiteSessionIndex` does)."""
        if count == 0:
            return []
        if through >= self.last_sequence:
            return self._entries("i.ended_seq IS NULL", ())
        found: list[InvocationEntry] = []
        # Walked back a page at a time (a cursor's first fetch would take every row):
        # the calls open at a point were mostly requested just before it.
        below, page = through + 1, 64
        while True:
            query = _ENTRY_QUERY.format(
                where="i.sequence < %s", order="DESC", limit=f"LIMIT {page}"
            )
            rows = self._connection.execute(self._q(query), (self._key, below)).fetchall()
            for row in rows:
                entry = _entry(row)
                if entry.ended_seq is None or entry.ended_seq > through:
                    found.append(entry)
                    if len(found) == count:
                        found.reverse()
                        return found
            if len(rows) < page:
                found.reverse()
                return found
            below, page = rows[-1][1], min(page * 4, 16_384)

    def refused(
        self, *, through: int, limit: int | None = None
    ) -> list[tuple[StoredEvent, InvocationEntry | None]]:
        """The refused events by ``through``, with their invocations' entries."""
        rows = self._connection.execute(
            self._q(
                "SELECT sequence, recorded_at, type, version, data FROM {schema}.correx_events "
                "WHERE session_key = %s AND effect < 0 AND sequence <= %s "
                "ORDER BY sequence LIMIT %s"
            ),
            (self._key, through, limit),
        ).fetchall()
        found = []
        for row in rows:
            stored = decode_row("postgresql", SessionId(self._session), row)
            invocation = getattr(stored.event, "invocation_id", None)
            found.append((stored, None if invocation is None else self.entry(invocation)))
        return found


READ_FULL = (
    "SELECT sequence, recorded_at, type, version, data FROM {schema}.correx_events "
    "WHERE session_key = %s AND sequence > %s ORDER BY sequence LIMIT %s"
)


READ_INDEXED = (
    "SELECT sequence, recorded_at, type, version, data, kind, invocation_id, label, code "
    "FROM {schema}.correx_events WHERE session_key = %s AND sequence > %s "
    "ORDER BY sequence LIMIT %s"
)


def texts_of(row: tuple[Any, ...]) -> Any:
    """An indexed row with its id and label (kept as UTF-8 bytes) as text."""
    sequence, at, type_tag, version, data, kind, invocation, label, code = row
    return (
        sequence,
        at,
        type_tag,
        version,
        data,
        kind,
        None if invocation is None else bytes(invocation).decode("utf-8"),
        None if label is None else bytes(label).decode("utf-8"),
        code,
    )
