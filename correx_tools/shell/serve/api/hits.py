"""``GET /api/v1/hits?q=&in=all|arguments|outputs|said&agent=&project=&model=&since=&until=&tz=&
failed=&machine=&offset=&limit=``: a search of what agents did in every session the filters
pick, through the store's full-text index where it keeps one.

The search is the store's (`SearchableStore`: every word and ``"quoted phrase"`` of ``q``,
in a call's arguments, its output or reason, or what was said), newest first; a store that
keeps no index is read instead (`ScannedSearch`, over the server's own catalog), by the
same rule, with every event of every session picked read on each question. Each hit is
``search --json``'s, built by the same function (``session_id``, ``invocation_id``,
``sequence``, ``field``, ``snippet``: its value masked whole, then cut; ``page``: the page at
that event, its call open), but for ``open``, the command that opens it, and with the refs
the page names the session and the call by.

The index holds the values as they were written; the server shows them masked. So a hit
is kept only if its masked value still holds what was asked: a secret is never found by
searching for it, as the page's other searches look in the masked text too.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

from ....core.catalog.listing import SessionQuery
from ....core.catalog.searched import FIELDS, Field, SearchHit, text_of
from ....core.catalog.words import matches, terms, words
from ....core.tools.ids import SessionId
from ...catalog.rows import hit_json
from ...stores.port import first_event
from ..debugger.debugger import Debugger
from ..errors import ApiError
from .params import choice, whole
from .picking import picked

DEFAULT_LIMIT = 50
MAX_LIMIT = 200
_IN: tuple[str, ...] = ("all", *FIELDS)


def hits(debugger: Debugger, query: Mapping[str, str]) -> dict[str, Any]:
    """A page of the hits of ``q`` (from ``offset``, at most ``limit``), and whether there
    are more (``more``) and an index answered (``index``)."""
    text = (query.get("q") or "").strip()
    where = choice(query, "in", _IN, "all")
    fields: Sequence[Field] = FIELDS if where == "all" else [f for f in FIELDS if f == where]
    offset = whole(query, "offset", 0)
    limit = whole(query, "limit", DEFAULT_LIMIT)
    if offset < 0 or not 1 <= limit <= MAX_LIMIT:
        raise ApiError(400, f"offset={offset}, limit={limit}: limit is 1 to {MAX_LIMIT}")
    asked, _ = picked(query)
    found = _shown_hits(debugger, text, fields, asked, offset + limit + 1) if terms(text) else []
    page = found[offset : offset + limit]
    return {
        "hits": [_hit(debugger, hit) for hit in page],
        "more": len(found) > offset + limit,
        "index": debugger.catalog.indexed,
        "offset": offset,
        "limit": limit,
    }


def _shown_hits(debugger: Debugger, text: str, fields: Sequence[Field], asked: SessionQuery,
                wanted: int) -> list[SearchHit]:  # fmt: skip
    """The first ``wanted`` hits whose masked value holds what was asked: the search asked
    for more while some of those it gave are passed by (rarely: a secret's words)."""
    searchable = debugger.catalog.searchable
    redaction = debugger.redaction
    asking = wanted
    while True:
        given = searchable.search(text, fields=fields, query=asked, limit=asking,
                                  redaction=redaction)  # fmt: skip
        kept = given if redaction is None else [h for h in given if _shown(debugger, text, h)]
        if len(kept) >= wanted or len(given) < asking:
            return kept[:wanted]
        asking *= 2


def _shown(debugger: Debugger, text: str, hit: SearchHit) -> bool:
    """Whether the hit's value, masked as the server shows it, still holds every term."""
    stored = first_event(debugger.store, SessionId(hit.session_id), after=hit.sequence - 1)
    given = None if stored is None else text_of(stored.event)
    if given is None:
        return False
    return matches(words(debugger.shown(given[2])), terms(text))


def _hit(debugger: Debugger, hit: SearchHit) -> dict[str, Any]:
    """A hit as ``search --json`` gives it (but the command that opens it: ``page`` opens it
    here), with the refs the page names its session and its call by."""
    return {
        **hit_json(hit, debugger.redaction),
        "session_ref": debugger.ref(hit.session_id),
        "invocation_ref": None if hit.invocation_id is None else debugger.ref(hit.invocation_id),
    }
