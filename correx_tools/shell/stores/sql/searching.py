"""The full-text index of what agents did in a database store: what it keeps, and a search.

One value per event that gives one (`searched.text_of`: a call's arguments, its output,
what was said), its words the tokenizer's (`words.words`). How each database keeps the
words is its own (`Dialect.search`); what this module keeps beside them is where each
value came from, in few bytes:

* A value's id is ``position << 2 | field`` (``field`` 1, 2 or 3, `FIELDS`' order),
  ``position`` taken from one count of the store, so the ids of values written one after
  the other are close together (an index keeps an id as its distance from the one
  before: a few bits, where ids spread by session cost five bytes a word).
* Each write of a session's values takes a **run** of positions, one per event from its
  first to its last (`search_runs`: its first and last position, the session's
  catalog number, its first sequence): an id's run is the last one starting at or before
  it, and its sequence is counted from the run's first. A run that goes on from the
  store's last one, for the same session, is made longer rather than a new one (an agent
  appending alone writes one run).

A search asks the database for the ids of the values holding every word of its terms,
newest first, finds each one's run and session (its catalog row, which keeps the
question's filters), and reads each hit's event for its snippet, holding a phrase's
words to their order there (the index keeps no positions: it costs a fifth of the text
it indexes where positions would cost half).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

from ....core.catalog.listing import SessionQuery
from ....core.catalog.searched import FIELDS, Field, SearchHit, snippet, text_of
from ....core.catalog.words import Term, matches, words
from ....core.lifecycle.events import StoredEvent
from ....core.report.redaction import Redaction
from ....core.tools.ids import SessionId
from ..codec.rows import decode_written_row
from .catalog_query import picked
from .dialect import Cursor, Dialect

PAGE = 500
"""Candidates read at a time where a search has no limit, or holds a phrase."""
_NEXT = "search_next"
"""The settings row that keeps the next position."""


def search_values(events: Iterable[StoredEvent]) -> list[tuple[int, int, list[str]]]:
    """The values ``events`` give the index: each one's sequence, field code and words
    (values with no word left out)."""
    values = []
    for stored in events:
        found = text_of(stored.event)
        if found is None:
            continue
        said = words(found[2])
        if said:
            values.append((stored.sequence, FIELDS.index(found[0]) + 1, said))
    return values


def write_words(d: Dialect, cursor: Cursor, number: int, events: Sequence[StoredEvent]) -> int:
    """Index the values of ``events`` (the session numbered ``number``'s next ones, in
    order) in a run of positions; how many were indexed."""
    values = search_values(events)
    if not values:
        return 0
    first, last = values[0][0], values[-1][0]
    cursor.execute(
        d.sql(f"INSERT INTO {{settings}} (name, value) VALUES ('{_NEXT}', 1) "
              "ON CONFLICT (name) DO NOTHING")
    )  # fmt: skip
    base = int(
        cursor.execute(d.sql(f"SELECT value FROM {{settings}} WHERE name = '{_NEXT}'")).fetchone()[
            0
        ]
    )
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
    cursor.execute(d.sql(f"UPDATE {{settings}} SET value = ? WHERE name = '{_NEXT}'"), (end + 1,))
    return len(values)


def drop_words(d: Dialect, cursor: Cursor, number: int, count: int) -> None:
    """Let go of the ``count`` values indexed for the session numbered ``number``."""
    d.search.dropped(cursor, number, count)
    cursor.execute(d.sql("DELETE FROM {search_runs} WHERE number = ?"), (number,))


def clear_words(d: Dialect, cursor: Cursor) -> None:
    """Let go of every indexed value (positions are not used again)."""
    d.search.cleared(cursor)
    cursor.execute(d.sql("DELETE FROM {search_runs}"))


def search(
    d: Dialect,
    cursor: Cursor,
    asked: Sequence[Term],
    *,
    fields: Sequence[Field],
    query: SessionQuery,
    limit: int | None,
    redaction: Redaction,
) -> list[SearchHit]:
    """The values holding every term ``asked``, in ``fields``, of the sessions ``query``
    picks: at most ``limit``, newest first, each with its snippet."""
    if not asked or not fields:
        return []
    # The index finds the values holding every word; a phrase's order is held by reading
    # the value again (`_hit`), so candidates are read a page at a time, newest first.
    every = tuple(dict.fromkeys(word for term in asked for word in term))
    source, found_id, condition, parameters = d.search.matching(every)
    where, picking = picked(d, query, "c")
    codes = ", ".join(str(FIELDS.index(field) + 1) for field in sorted(set(fields)))
    phrases = any(len(term) > 1 for term in asked)
    page = (limit or PAGE) if not phrases else max(PAGE, 4 * (limit or 0))
    position = f"({found_id}) >> 2"
    hits: list[SearchHit] = []
    before: int | None = None
    while limit is None or len(hits) < limit:
        rows = cursor.execute(
            d.sql(
                f"SELECT {found_id}, c.name, r.first_sequence, r.first_id FROM {source} "
                f"JOIN {{search_runs}} r ON r.first_id = (SELECT MAX(first_id) "
                f"FROM {{search_runs}} WHERE first_id <= {position}) "
                f"JOIN {{catalog}} c ON c.number = r.number "
                f"WHERE {condition} AND {position} <= r.last_id AND ({found_id}) & 3 IN ({codes}) "
                f"{where and 'AND ' + where} {'' if before is None else f'AND {found_id} < ?'} "
                f"ORDER BY {found_id} DESC LIMIT {page}"
            ),
            (*parameters, *picking, *(() if before is None else (before,))),
        ).fetchall()
        for value, name, first_sequence, first_id in rows:
            sequence = int(first_sequence) + (int(value) >> 2) - int(first_id)
            hit = _hit(d, cursor, d.text(name) or "", sequence, asked=asked, redaction=redaction)
            if hit is not None:
                hits.append(hit)
        if len(rows) < page:
            break
        before = int(rows[-1][0])
    return hits if limit is None else hits[:limit]


def _hit(
    d: Dialect,
    cursor: Cursor,
    session_id: str,
    sequence: int,
    *,
    asked: Sequence[Term],
    redaction: Redaction,
) -> SearchHit | None:
    row = cursor.execute(
        d.sql(
            "SELECT sequence, recorded_at, type, version, data FROM {events} "
            "WHERE {session} = ? AND sequence = ?"
        ),
        (d.session_key(session_id), sequence),
    ).fetchone()
    if row is None:
        return None
    stored = decode_written_row(d.where, SessionId(session_id), tuple(row))
    found = text_of(stored.event)
    if found is None:
        return None
    field, invocation, text = found
    if any(len(term) > 1 for term in asked) and not matches(words(text), asked):
        return None  # every word, but not a phrase's in a row
    return SearchHit(session_id=session_id, invocation_id=invocation, sequence=sequence,
                     field=field, snippet=snippet(text, tuple(asked), redaction))  # fmt: skip
