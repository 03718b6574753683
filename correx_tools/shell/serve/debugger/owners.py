"""Whose each session of a team's store is: the machine it was pushed from and the user who
pushed it, read from the store's own catalog; neither, for a store that holds no machine's
name (a single machine's, or one that keeps no catalog)."""

from __future__ import annotations

import threading
from typing import final

from ....core.catalog.listing import SessionQuery
from ...stores.port import EventStore
from ...stores.sql.catalog_store import CatalogAnswers

Owner = tuple[str | None, str | None]
"""A session's machine and user (``None``: not named)."""


@final
class Owners:
    """The machine and the user of each session, read again after the store was looked at
    anew (`look_again`) when a session not known yet is asked about."""

    def __init__(self, store: EventStore) -> None:
        keeps = isinstance(store, CatalogAnswers) and store.keeps_catalog
        self._store: CatalogAnswers | None = store if keeps else None  # type: ignore[assignment]
        self._known: dict[str, Owner] = {}
        self._stale = True
        self._lock = threading.Lock()

    def look_again(self) -> None:
        """New sessions may be in the store: the next one not known reads them all again."""
        self._stale = True

    def of(self, session_id: str) -> Owner:
        """The session's machine and user."""
        if self._store is None:
            return None, None
        with self._lock:
            found = self._known.get(session_id)
            if found is None and self._stale:
                listed, _ = self._store.listed(SessionQuery())
                self._known = {s.session_id: (s.machine, s.user) for s in listed}
                self._stale = False
                found = self._known.get(session_id)
        return (None, None) if found is None else found
