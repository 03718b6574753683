"""A search of a store that keeps no full-text index (memory, a JSONL log, an older
database): each picked session's events read and held to the search's terms by the rule
the index follows (`words.matches` over `words.words`), so both answer the same hits.

The sessions are read most recent first (`CatalogStore.listed`), each one's events from
its last; a database's index answers the same hits newest first by when their sessions
were first written, so the two may give them in another order.
"""

from __future__ import annotations

from collections.abc import Sequence

from ...core.catalog.listing import SessionQuery
from ...core.catalog.searched import FIELDS, Field, SearchHit, text_of
from ...core.catalog.snippets import snippet
from ...core.catalog.words import matches, terms, words
from ...core.report.redaction import Redaction
from ...core.tools.ids import SessionId
from ..stores.port import EventStore, session_events
from .port import CatalogStore


class ScannedSearch:
    """`SearchableStore` by reading the events of the sessions a catalog picks."""

    def __init__(self, store: EventStore, catalog: CatalogStore) -> None:
        self._store = store
        self._catalog = catalog

    def search(
        self,
        text: str,
        *,
        fields: Sequence[Field] = FIELDS,
        query: SessionQuery | None = None,
        limit: int | None = None,
        redaction: Redaction | None = None,
    ) -> list[SearchHit]:
        """The events whose value in ``fields`` holds every term of ``text`` (see the
        module docstring), at most ``limit``."""
        asked = terms(text)
        wanted = set(fields)
        if not asked or not wanted or limit == 0:
            return []
        masking = redaction or Redaction()
        sessions, _ = self._catalog.listed(query or SessionQuery())
        hits: list[SearchHit] = []
        for listed in sessions:
            found: list[SearchHit] = []
            with session_events(self._store, SessionId(listed.session_id)) as events:
                for stored in events:
                    given = text_of(stored.event)
                    if given is None or given[0] not in wanted:
                        continue
                    field, invocation, value = given
                    if matches(words(value), asked):
                        hit = SearchHit(session_id=listed.session_id, invocation_id=invocation,
                                        sequence=stored.sequence, field=field,
                                        snippet=snippet(value, asked, masking))  # fmt: skip
                        found.append(hit)
            hits += reversed(found)
            if limit is not None and len(hits) >= limit:
                return hits[:limit]
        return hits
