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
newest first, a page at a time, finds each one's run and session (its catalog row,
which keeps the question's filters), and reads each hit's event for its snippet, holding a phrase's
words to their order there (the index keeps no positions: it costs a fifth of the text
it indexes where positions would cost half).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ....core.catalog.listing import SessionQuery
from ....core.catalog.searched import FIELDS, Field, SearchHit, text_of
from ....core.catalog.snippets import snippet
from ....core.catalog.words import Term, matches, words
from ....core.report.redaction import Redaction
from ....core.tools.ids import SessionId
from ..codec.rows import decode_written_row
from .catalog_query import picked
from .dialect import Cursor, Dialect

PAGE = 500
"""Candidates read at a time where a search has no limit, holds a phrase, or keeps only
some sessions."""
READ_AT_ONCE = 100
"""Candidates' events read in one question."""


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
    page = (limit or PAGE) if not (phrases or where) else max(PAGE, 4 * (limit or 0))
    hits: list[SearchHit] = []
    before: int | None = None
    # The ranges of ids the index is asked for in turn, the newest first (`windows`); a
    # range's candidates a page at a time, then the next range's below it.
    for lowest in d.search.windows(cursor):
        while limit is None or len(hits) < limit:
            # A page of the index's newest candidates first, then each one's run and
            # session, kept where the question picks it.
            bounds = ("" if before is None else f" AND {found_id} < ?") + (
                "" if lowest is None else f" AND {found_id} >= ?"
            )
            rows = cursor.execute(
                d.sql(
                    "SELECT w.id, c.name, r.first_sequence, r.first_id, CASE WHEN "
                    f"(w.id >> 2) <= r.last_id {where and 'AND ' + where} THEN 1 ELSE 0 END "
                    f"FROM (SELECT {found_id} AS id FROM {source} WHERE {condition} "
                    f"AND ({found_id}) & 3 IN ({codes}){bounds} ORDER BY {found_id} DESC "
                    f"LIMIT {page}) w "
                    "LEFT JOIN {search_runs} r ON r.first_id = "
                    "(SELECT MAX(first_id) FROM {search_runs} WHERE first_id <= (w.id >> 2)) "
                    "LEFT JOIN {catalog} c ON c.number = r.number ORDER BY w.id DESC"
                ),
                (*picking, *parameters, *(b for b in (before, lowest) if b is not None)),
            ).fetchall()
            found = [
                (d.text(name) or "", int(first_sequence) + (int(value) >> 2) - int(first_id))
                for value, name, first_sequence, first_id, kept in rows
                if kept
            ]
            hits += _hits(d, cursor, found, asked=asked, redaction=redaction)
            if len(rows) < page:
                break
            before = int(rows[-1][0])
        if lowest is None or (limit is not None and len(hits) >= limit):
            break
        before = lowest
    return hits if limit is None else hits[:limit]


def _hits(
    d: Dialect,
    cursor: Cursor,
    found: Sequence[tuple[str, int]],
    *,
    asked: Sequence[Term],
    redaction: Redaction,
) -> list[SearchHit]:
    """The hits among ``found`` (each a session and a sequence, newest first), in that
    order: their events read in one question (a page's candidates are many sessions'; one
    question each cost a round trip each), a phrase held to its order in each."""
    one = "({session} = ? AND sequence = ?)"
    read: dict[tuple[object, int], tuple[Any, ...]] = {}
    for start in range(0, len(found), READ_AT_ONCE):
        some = found[start : start + READ_AT_ONCE]
        rows = cursor.execute(
            d.sql(
                "SELECT {session}, sequence, recorded_at, type, version, data FROM {events} "
                f"WHERE {' OR '.join([one] * len(some))}"
            ),
            tuple(v for session, sequence in some for v in (d.session_key(session), sequence)),
        ).fetchall()
        read.update({(_key(row[0]), int(row[1])): tuple(row[1:]) for row in rows})
    hits = []
    for session_id, sequence in found:
        row = read.get((_key(d.session_key(session_id)), sequence))
        hit = None if row is None else _hit(d, session_id, row, asked, redaction)
        if hit is not None:
            hits.append(hit)
    return hits


def _key(value: object) -> object:
    """A session's key as it compares (a driver gives a binary one back as it likes)."""
    return bytes(value) if isinstance(value, bytes | bytearray | memoryview) else value


def _hit(
    d: Dialect,
    session_id: str,
    row: tuple[Any, ...],
    asked: Sequence[Term],
    redaction: Redaction,
) -> SearchHit | None:
    stored = decode_written_row(d.where, SessionId(session_id), row)
    found = text_of(stored.event)
    if found is None:
        return None
    field, invocation, text = found
    if any(len(term) > 1 for term in asked) and not matches(words(text), asked):
        return None  # every word, but not a phrase's in a row
    return SearchHit(session_id=session_id, invocation_id=invocation, sequence=stored.sequence,
                     field=field, snippet=snippet(text, tuple(asked), redaction))  # fmt: skip
