"""Checking a run of stored events against their chain, as they are read.

Each event's ``chain`` is a CRC-32 of the event as stored and of its derived
columns, continuing the chain of the event before it (`indexing.chain_of`). A
reader that recomputes it over the rows it reads, from a chain it trusts,
catches a changed payload or typed column, a missing or an inserted event, a
row moved from elsewhere: anything but a forger who recomputes every chain
after the change (for that, ``correx-tools verify`` compares the whole index
with a fresh fold of the events).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any

from ..codec.envelope import format_timestamp
from .dialect import Cursor, Dialect
from .indexing import chain_of

CHAINED_COLUMNS = (
    "sequence, recorded_at, type, version, data, kind, invocation_id, label, code, effect, chain"
)
"""The columns a checked read selects, in the order `checked_rows` takes them."""

Row = tuple[Any, ...]


class ChainBroken(Exception):
    """A stored event that does not continue the chain before it; ``sequence`` says which."""

    def __init__(self, sequence: int) -> None:
        super().__init__(f"sequence {sequence} does not match the chain of the events before it")
        self.sequence = sequence


def checked_rows(d: Dialect, rows: Iterable[Row], after: int, chain: int) -> Iterator[Row]:
    """``rows`` (read in sequence order after ``after``, whose chain is ``chain``), each with
    its ids and labels as text, once it is found to continue the chain; `ChainBroken` at
    the first that does not (its predecessors were all yielded)."""
    text = d.text if d.texts_as_bytes else None
    expected = after + 1
    for row in rows:
        sequence, at, type_tag, version, data, kind, invocation, label, code, effect, stored = row
        if text is not None:
            invocation, label = text(invocation), text(label)
        if kind is None or sequence != expected:
            raise ChainBroken(expected)
        chain = chain_of(
            chain,
            (sequence, at if type(at) is str else format_timestamp(at), type_tag, version, data,
             kind, invocation, label, code, effect),
        )  # fmt: skip
        if chain != stored:
            raise ChainBroken(sequence)
        expected += 1
        yield sequence, at, type_tag, version, data, kind, invocation, label, code, effect, stored


def continues(d: Dialect, chain: int, row: Row) -> bool:
    """Whether ``row`` (in `CHAINED_COLUMNS` order) was chained on from ``chain``: its stored
    chain is the one its stored columns make after ``chain``. Said of the row after one
    whose content does not make its own stored chain, it tells an event changed after it
    was written (the chain goes on from what was written) from a damaged chain value."""
    kind, invocation, label, code, effect, stored = row[5:11]
    if d.texts_as_bytes:
        invocation, label = d.text(invocation), d.text(label)
    at = row[1] if type(row[1]) is str else format_timestamp(row[1])
    fields = (row[0], at, row[2], row[3], row[4], kind, invocation, label, code, effect)
    return kind is not None and stored == chain_of(chain, fields)


def events(
    d: Dialect,
    cursor: Cursor,
    session_id: str,
    after: int,
    limit: int,
    *,
    indexed: bool,
    only: str | None = None,
    before: int | None = None,
) -> list[tuple[Any, ...]]:
    """One batch of a session's event rows after ``after`` (and before ``before``):
    ``(sequence, recorded_at, type, version, data)``, and with ``indexed`` every column a
    checked read needs (`CHAINED_COLUMNS`); with ``only``, those rows that meet that
    condition alone."""
    columns = CHAINED_COLUMNS if indexed else "sequence, recorded_at, type, version, data"
    condition = "" if only is None else f" AND {only}"
    bounds: tuple[int, ...] = (after,) if before is None else (after, before)
    if before is not None:
        condition += " AND sequence < ?"
    rows: list[tuple[Any, ...]] = cursor.execute(
        d.sql(
            f"SELECT {columns} FROM {{events}} "
            f"WHERE {{session}} = ? AND sequence > ?{condition} ORDER BY sequence LIMIT ?"
        ),
        (d.session_key(session_id), *bounds, limit),
    ).fetchall()
    return rows
