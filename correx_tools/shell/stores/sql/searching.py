"""The full-text index of what agents did in a database store: what it keeps, and a search.

One value per event that gives one (`searched.text_of`: a call's arguments, its output,
what was said), its words the tokenizer's (`words.words`), kept under one id that says
whose it is: ``number << 32 | sequence << 2 | field``, where ``number`` is the session's
catalog number (`catalog`) and ``field`` 1, 2 or 3 (`FIELDS`' order). An event past
sequence 2**30 of its session is not indexed. How each database keeps the words is its
own (`Dialect.search`); a search asks it for the ids of the values holding every word
of its terms, newest first (the sessions made last, their events from the last), keeps
those of the sessions the question picks, and reads each hit's event for its snippet,
holding a phrase's words to their order there (the index keeps no positions: it costs a
fifth of the text it indexes where positions would cost half).
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

SEQUENCE_BITS = 30
PAGE = 500
"""Candidates read at a time where a search has no limit, or holds a phrase."""
_NUMBER_SHIFT = SEQUENCE_BITS + 2


def search_id(number: int, sequence: int, field: Field) -> int:
    """The id a value is indexed under."""
    return number << _NUMBER_SHIFT | sequence << 2 | (FIELDS.index(field) + 1)


def search_rows(number: int, events: Iterable[StoredEvent]) -> list[tuple[int, list[str]]]:
    """The values ``events`` give the index, each with its id (values with no word left out)."""
    rows = []
    for stored in events:
        found = text_of(stored.event)
        if found is None or stored.sequence >= 1 << SEQUENCE_BITS:
            continue
        field, _, text = found
        said = words(text)
        if said:
            rows.append((search_id(number, stored.sequence, field), said))
    return rows


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
    hits: list[SearchHit] = []
    before: int | None = None
    while limit is None or len(hits) < limit:
        rows = cursor.execute(
            d.sql(
                f"SELECT {found_id}, c.name FROM {source} "
                f"JOIN {{catalog}} c ON c.number = ({found_id}) >> {_NUMBER_SHIFT} "
                f"WHERE {condition} AND ({found_id}) & 3 IN ({codes}) "
                f"{where and 'AND ' + where} {'' if before is None else f'AND {found_id} < ?'} "
                f"ORDER BY {found_id} DESC LIMIT {page}"
            ),
            (*parameters, *picking, *(() if before is None else (before,))),
        ).fetchall()
        for value, name in rows:
            session_id = d.text(name) or ""
            sequence = (int(value) >> 2) & ((1 << SEQUENCE_BITS) - 1)
            hit = _hit(d, cursor, session_id, sequence, asked=asked, redaction=redaction)
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
