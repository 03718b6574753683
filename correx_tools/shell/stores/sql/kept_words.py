"""The full-text index's values as a write keeps them, beside the events (`searching` says
what the index holds and how it is read).

A value's id is ``position << 2 | field``. Each write of a session's values takes a run
of positions, one per event from its first to its last, from the database
(`SearchIndex.positions`: in SQLite one count of the store, so the ids of values written
one after the other are close together; in PostgreSQL the session's own range, so no two
writers wait on one count), kept in ``search_runs`` with the session's catalog number
and its first sequence. A run that goes on from the store's last one, for the same
session, is made longer rather than a new one.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ....core.catalog.searched import FIELDS, text_of
from ....core.catalog.words import words
from ....core.lifecycle.events import StoredEvent
from .dialect import Cursor, Dialect

LAST_SEQUENCE = 1 << 30
"""No value of an event at or past this sequence of its session is indexed (a session's
positions in PostgreSQL are its number's, then its sequence in 30 bits)."""


def search_values(events: Iterable[StoredEvent]) -> list[tuple[int, int, list[str]]]:
    """The values ``events`` give the index: each one's sequence, field code and words
    (values with no word left out)."""
    values = []
    for stored in events:
        found = text_of(stored.event)
        if found is None or stored.sequence >= LAST_SEQUENCE:
            continue
        said = words(found[2])
        if said:
            values.append((stored.sequence, FIELDS.index(found[0]) + 1, said))
    return values


def write_words(d: Dialect, cursor: Cursor, number: int, events: Sequence[StoredEvent]) -> int:
    """Index the values of ``events`` (the session numbered ``number``'s next ones, in
    order) in a run of positions; how many were indexed."""
    return write_values(d, cursor, number, search_values(events))


def write_values(
    d: Dialect, cursor: Cursor, number: int, values: Sequence[tuple[int, int, list[str]]]
) -> int:
    """Index ``values`` (`search_values` of the session numbered ``number``'s next events,
    made here or in another process) in a run of positions; how many were indexed."""
    if not values:
        return 0
    first, last = values[0][0], values[-1][0]
    (base,) = d.search.positions(cursor, [(number, first, last - first + 1)])
    d.search.written(cursor, [((base + sequence - first) << 2 | code, said)
                              for sequence, code, said in values])  # fmt: skip
    end = base + last - first
    before = cursor.execute(
        d.sql("SELECT first_id, number, first_sequence, last_id FROM {search_runs} "
              "ORDER BY first_id DESC LIMIT 1")
    ).fetchone()  # fmt: skip
    if (before is not None and before[1] == number and before[3] == base - 1
            and before[2] + (before[3] - before[0]) + 1 == first):  # fmt: skip
        cursor.execute(
            d.sql("UPDATE {search_runs} SET last_id = ? WHERE first_id = ?"), (end, before[0])
        )
    else:
        cursor.execute(
            d.sql("INSERT INTO {search_runs} (first_id, number, first_sequence, last_id) "
                  "VALUES (?, ?, ?, ?)"),
            (base, number, first, end),
        )  # fmt: skip
    return len(values)


def write_new_values(
    d: Dialect, cursor: Cursor, sessions: Sequence[tuple[int, Sequence[tuple[int, int, list[str]]]]]
) -> list[int]:
    """`write_values` of new sessions (each its number, never used before, and its values),
    in their order, written together; how many values each indexed. A new number's run
    never goes on from the run before it: each is a run of its own."""
    given = [(number, values) for number, values in sessions if values]
    firsts = d.search.positions(
        cursor,
        [(number, values[0][0], values[-1][0] - values[0][0] + 1) for number, values in given],
    )
    d.search.written(cursor, [((base + sequence - values[0][0]) << 2 | code, said)
                              for (_, values), base in zip(given, firsts, strict=True)
                              for sequence, code, said in values])  # fmt: skip
    cursor.executemany(
        d.sql("INSERT INTO {search_runs} (first_id, number, first_sequence, last_id) "
              "VALUES (?, ?, ?, ?)"),
        [(base, number, values[0][0], base + values[-1][0] - values[0][0])
         for (number, values), base in zip(given, firsts, strict=True)],
    )  # fmt: skip
    return [len(values) for _, values in sessions]


def drop_words(d: Dialect, cursor: Cursor, number: int, count: int) -> None:
    """Let go of the ``count`` values indexed for the session numbered ``number``."""
    d.search.dropped(cursor, number, count)
    cursor.execute(d.sql("DELETE FROM {search_runs} WHERE number = ?"), (number,))


def clear_words(d: Dialect, cursor: Cursor) -> None:
    """Let go of every indexed value (positions are not used again)."""
    d.search.cleared(cursor)
    cursor.execute(d.sql("DELETE FROM {search_runs}"))
