"""A session's conversation read alone: its prompts, words, reasoning and usage, found
through the conversation's partial index (`layout.SAID_INDEX`) without reading the tool
events between them.

These events are not consecutive, so each is held to its chain alone: read with the chain
of the event before it, as `vouching` decides for a consecutive read (an event changed
after it was written is never handed on). Each is decoded in full from its own JSON by the
strict rules.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from typing import Any

from ....core.lifecycle.events import StoredEvent
from ....core.tools.ids import SessionId
from ..codec.rows import decode_row
from ..port import StoreReadError
from .chains import CHAINED_COLUMNS, continues, events
from .dialect import Cursor, Database, Dialect, ReadFault
from .index import sealed_head
from .indexing import EMPTY_CHAIN
from .layout import SAID

_UNCHAINED = (
    "its chain cannot be checked: the event before it has none (`correx-tools verify` says which)"
)


def said_events(
    database: Database,
    session_id: SessionId,
    after: int,
    batch: int,
    unavailable: Callable[[ReadFault, int], StoreReadError],
    *,
    before: int | None = None,
    chained: bool = True,
) -> Iterator[StoredEvent]:
    """The session's conversation events after ``after`` (and before ``before``), in order,
    ``batch`` rows a query; ``chained``: the layout keeps a chain with each event. A
    database that cannot be read raises what ``unavailable`` makes of it."""
    d, last = database.dialect, after
    while True:
        # One batch per query: other threads may use the connection in between.
        try:
            with database.query() as cursor:
                if chained:
                    rows = _chained(d, cursor, session_id, (last, before), batch)
                else:
                    rows = events(
                        d, cursor, session_id, last, batch, indexed=False, only=SAID, before=before
                    )
        except ReadFault as fault:
            raise unavailable(fault, last + 1) from None
        for row in rows:
            if chained:
                _vouch(database, session_id, row[0], row[1:])
            yield decode_row(d.where, session_id, row[1:6] if chained else row)
        if len(rows) < batch:
            return
        last = rows[-1][1 if chained else 0]


def _chained(
    d: Dialect, cursor: Cursor, session_id: SessionId, span: tuple[int, int | None], limit: int
) -> list[tuple[Any, ...]]:
    """One batch of the conversation's rows in ``span`` (after, before), each with the chain
    of the event before it."""
    after, before = span
    columns = ", ".join("e." + column for column in CHAINED_COLUMNS.split(", "))
    bound, bounds = ("", (after,)) if before is None else (" AND e.sequence < ?", (after, before))
    said = SAID.replace("type IN", "e.type IN")
    rows: list[tuple[Any, ...]] = cursor.execute(
        d.sql(
            f"SELECT p.chain, {columns} FROM {{events}} e LEFT JOIN {{events}} p "
            "ON p.{session} = e.{session} AND p.sequence = e.sequence - 1 "
            f"WHERE e.{{session}} = ? AND e.sequence > ?{bound} AND {said} "
            "ORDER BY e.sequence LIMIT ?"
        ),
        (d.session_key(session_id), *bounds, limit),
    ).fetchall()
    return rows


def _refused(where: str, session: str, sequence: int) -> StoreReadError:
    from .vouching import refused  # noqa: PLC0415 - only a damaged store needs it

    return refused(where, session, sequence, _UNCHAINED)


def _vouch(database: Database, session_id: SessionId, previous: Any, row: tuple[Any, ...]) -> None:
    """Hold one conversation row to its chain, from ``previous`` (the chain of the event
    before it; the first event's is the empty chain)."""
    d, sequence, session = database.dialect, row[0], str(session_id)
    if sequence == 1:
        previous = EMPTY_CHAIN
    if row[5] is None or row[10] is None:
        if previous is None:
            return  # an older release's events, before their index: nothing to check
        raise _refused(d.where, session, sequence)
    if previous is None:
        raise _refused(d.where, session, sequence)
    if continues(d, previous, row):
        return
    from .vouching import vouched_chain  # noqa: PLC0415 - only at damage

    def query(read: Callable[[Cursor], Any]) -> Any:
        with database.query() as cursor:
            return read(cursor)

    def following() -> tuple[Any, ...] | None:
        found = query(lambda cursor: events(d, cursor, session_id, sequence, 1, indexed=True))
        return found[0] if found and found[0][0] == sequence + 1 else None

    vouched_chain(
        d, session, row, previous, following=following,
        head=functools.partial(query, lambda cursor: sealed_head(d, cursor, session)),
    )  # fmt: skip
