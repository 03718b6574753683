"""What a store that keeps its sessions' catalog answers: the sessions a question picks,
most recent first, and their activity by quarter hour (`CatalogStore`); and what one
that can search them answers (`SearchableStore`)."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from datetime import datetime
from typing import Protocol, runtime_checkable

from ...core.catalog.listing import Listed, SessionQuery
from ...core.catalog.searched import FIELDS, Field, SearchHit
from ...core.catalog.usage import Entry
from ...core.report.redaction import Redaction


@runtime_checkable
class CatalogStore(Protocol):
    """A store that keeps, for each session, its listing and activity as it writes it."""

    def listed(self, query: SessionQuery, *, limit: int | None = None) -> tuple[list[Listed], int]:
        """The sessions ``query`` picks, most recent first (at most ``limit``), and how many
        it picks in all."""
        ...

    def activity(
        self, query: SessionQuery, *, since: datetime | None = None, until: datetime | None = None
    ) -> Iterator[Entry]:
        """The activity windows of the sessions ``query`` picks whose quarter lies in
        ``[since, until)`` (UTC; the windows of no time only where neither is given)."""
        ...


@runtime_checkable
class SearchableStore(Protocol):
    """A store that answers a search of what agents did across its sessions."""

    def search(
        self,
        text: str,
        *,
        fields: Sequence[Field] = FIELDS,
        query: SessionQuery | None = None,
        limit: int | None = None,
        redaction: Redaction | None = None,
    ) -> list[SearchHit]:
        """The events whose value in ``fields`` holds every word and quoted phrase of
        ``text`` (`words`), of the sessions ``query`` picks, at most ``limit``, each with a
        snippet masked by ``redaction`` (the default rules where none is given), then cut."""
        ...
