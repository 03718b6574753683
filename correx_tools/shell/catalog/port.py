"""What a store that keeps its sessions' catalog answers: the sessions a question picks,
most recent first, and their activity by quarter hour."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from typing import Protocol, runtime_checkable

from ...core.catalog.listing import Listed, SessionQuery
from ...core.catalog.usage import Entry


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
