"""A session's events read in batches, each handed on only once its chain vouches for it.

While the session's index is fresh, each row is checked against its chain as it is read
and a tool event is built from its typed columns (`chains.checked_rows`): the fast path,
one CRC a row. At the first row that does not make its stored chain, `vouching` decides:
the index's damage is read around (every event after it decoded from its own JSON, each
still held to the chain), an event changed after it was written stops the read, named. A
session whose index is stale (marked by the triggers, or refused a rebuild) is read the
slow way from its first event on. A store of a layout older than the chains has nothing to
check: its events are decoded as they are.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

from ....core.lifecycle.events import StoredEvent
from ....core.tools.ids import SessionId
from ..codec.rows import decode_indexed_rows, decode_row, decode_written_row
from ..port import StoreReadError
from .chains import CHAINED_COLUMNS, ChainBroken, checked_rows, continues, events
from .dialect import Cursor, Database, Dialect, ReadFault
from .index import chain_at, sealed_head
from .indexing import EMPTY_CHAIN

UNCHAINED = (
    "its chain cannot be checked: an event before it was written without one "
    "(`correx-tools verify` says which)"
)
GAP = "the event is missing (a gap: expected sequence {}, found {}), so no event after it is read"

Unavailable = Callable[[ReadFault, int], StoreReadError]
Row = tuple[Any, ...]
"""An event row in `chains.CHAINED_COLUMNS` order."""


def _refused(where: str, session: str, sequence: int, why: str) -> StoreReadError:
    from .vouching import refused  # noqa: PLC0415 - only a damaged store needs it

    return refused(where, session, sequence, why)


class _Reader:
    """One read's state: where it is, the chain it goes on from, the way rows are built."""

    def __init__(self, database: Database, session_id: SessionId, after: int) -> None:
        self.database = database
        self.d = database.dialect
        self.session_id = session_id
        self.last = after
        self.previous: int | None = EMPTY_CHAIN
        """The chain the next row goes on from (``None``: not known, an event before it
        written without a chain)."""

    def fast(self, rows: list[Row], columns: bool) -> Iterator[StoredEvent]:
        """``rows`` while each continues the chain: from typed columns (``columns``) or
        from JSON this library wrote; `ChainBroken` at the first that does not."""
        d, session_id = self.d, self.session_id
        assert self.previous is not None
        checked = checked_rows(d, rows, self.last, self.previous)
        built: Iterator[StoredEvent] = (
            decode_indexed_rows(d.where, session_id, checked)
            if columns
            else (decode_written_row(d.where, session_id, row[:5]) for row in checked)
        )
        for stored in built:
            self.last = stored.sequence
            yield stored
        if rows:
            self.previous = rows[-1][10]

    def slow(self, rows: list[Row], start: int) -> Iterator[StoredEvent]:
        """``rows[start:]`` one at a time, each held to the chain, decoded from its JSON by
        the strict rules."""
        d, session = self.d, str(self.session_id)
        for n in range(start, len(rows)):
            row = rows[n]
            sequence = row[0]
            if row[5] is None or row[10] is None:  # an older release's: nothing to check
                self.previous = None
            elif sequence != self.last + 1:
                missing = self.last + 1
                raise _refused(d.where, session, missing, GAP.format(missing, sequence))
            elif self.previous is None:
                raise _refused(d.where, session, sequence, UNCHAINED)
            elif continues(d, self.previous, row):
                self.previous = int(row[10])
            else:
                from .vouching import vouched_chain  # noqa: PLC0415 - only at damage

                self.previous = vouched_chain(
                    d, session, row, self.previous,
                    following=functools.partial(self._following, rows, n), head=self._head,
                )  # fmt: skip
            yield decode_row(d.where, self.session_id, row[:5])
            self.last = sequence

    def _following(self, rows: list[Row], n: int) -> Row | None:
        """The row after ``rows[n]``: the next in the batch, or read (``None``: none)."""
        if n + 1 < len(rows):
            return rows[n + 1]
        sequence = rows[n][0]
        with self.database.query() as cursor:
            found = events(self.d, cursor, self.session_id, sequence, 1, indexed=True)
        return found[0] if found and found[0][0] == sequence + 1 else None

    def _head(self) -> tuple[int, int] | None:
        with self.database.query() as cursor:
            return sealed_head(self.d, cursor, str(self.session_id))


def read_events(
    database: Database,
    session_id: SessionId,
    after: int,
    *,
    chained: bool,
    columns: bool,
    batches: tuple[int, int],
    unavailable: Unavailable,
) -> Iterator[StoredEvent]:
    """The session's events after ``after``, in order, in batches (``batches``: the first
    one's size, the others'); ``chained``: the layout keeps a chain with each event;
    ``columns``: tool events may be built from their typed columns while the index is fresh.
    A database that cannot be read raises what ``unavailable`` makes of it."""
    after = max(after, 0)
    reader = _Reader(database, session_id, after)
    d, size = database.dialect, batches[0]
    fresh, first = False, None
    try:
        with database.query() as cursor:
            if chained:
                reader.previous = _chain_before(database, cursor, session_id, after)
                fresh, first = _fresh_and_first(d, cursor, session_id, after, size)
    except ReadFault as fault:
        raise unavailable(fault, after + 1) from None
    while True:
        # One batch per query: other threads may use the connection in between.
        try:
            if first is not None:
                rows, first = first, None
            else:
                with database.query() as cursor:
                    rows = events(d, cursor, session_id, reader.last, size, indexed=chained)
        except ReadFault as fault:
            raise unavailable(fault, reader.last + 1) from None
        if not chained:
            for row in rows:
                yield decode_row(d.where, session_id, row)
        elif fresh and reader.previous is not None:
            try:
                yield from reader.fast(rows, columns)
            except ChainBroken:
                fresh = False  # the rest is read the slow way, which decides
                handed = reader.last - (rows[0][0] - 1)  # rows handed on, each vouched for
                if handed > 0:
                    reader.previous = int(rows[handed - 1][10])
                yield from reader.slow(rows, handed)
        else:
            yield from reader.slow(rows, 0)
        if len(rows) < size:
            return
        reader.last = rows[-1][0]
        size = batches[1]


def _fresh_and_first(
    d: Dialect, cursor: Cursor, session_id: SessionId, after: int, limit: int
) -> tuple[bool, list[Row]]:
    """Whether the session's index is marked fresh (`index.marked_fresh`), and its first
    batch of rows after ``after`` (`chains.events`), asked in one query."""
    key = d.session_key(session_id)
    found = cursor.execute(
        d.sql(
            f"SELECT h.stale, e.* FROM (SELECT 1) AS one LEFT JOIN {{heads}} h "
            f"ON h.{{session}} = ? LEFT JOIN (SELECT {CHAINED_COLUMNS} FROM {{events}} "
            "WHERE {session} = ? AND sequence > ? ORDER BY sequence LIMIT ?) AS e ON 1 = 1 "
            "ORDER BY e.sequence"
        ),
        (key, key, after, limit),
    ).fetchall()
    stale = found[0][0]
    rows = [tuple(row[1:]) for row in found if row[1] is not None]
    return stale is not None and not stale, rows


def _chain_before(
    database: Database, cursor: Cursor, session_id: SessionId, after: int
) -> int | None:
    """The chain a read after ``after`` goes on from (``None``: the event there has none)."""
    if not after:
        return EMPTY_CHAIN
    return chain_at(database.dialect, cursor, session_id, after)
