"""Which answers a store gives of many sessions: its own catalog and full-text index where
it keeps them (a database of this release's layout), else a fold of each session's events
(`FoldedCatalog`) and a scan of them (`ScannedSearch`), by the same rules."""

from __future__ import annotations

from ..replay.repository import DefaultToolRepository
from ..stores.port import EventStore
from ..stores.sql.catalog_store import CatalogAnswers
from .folded import FoldedCatalog
from .port import CatalogStore, SearchableStore
from .scanned import ScannedSearch


def catalog_of(store: EventStore, repository: DefaultToolRepository) -> CatalogStore:
    """The store itself where it keeps its catalog, else its events folded (by
    ``repository``, which counts each session's calls)."""
    if isinstance(store, CatalogAnswers) and store.keeps_catalog:
        return store
    return FoldedCatalog(store, repository)


def searchable_of(store: EventStore, repository: DefaultToolRepository) -> SearchableStore:
    """The store itself where it keeps its full-text index, else a scan of its events
    (the sessions picked by `catalog_of`)."""
    if isinstance(store, CatalogAnswers) and store.keeps_catalog:
        return store
    return ScannedSearch(store, catalog_of(store, repository))
