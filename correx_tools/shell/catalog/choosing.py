"""The catalog a store answers with: its own where it keeps one, else one folded from its
events."""

from __future__ import annotations

from ..replay.repository import DefaultToolRepository
from ..stores.port import EventStore
from .folded import FoldedCatalog
from .port import CatalogStore


def catalog_of(store: EventStore, repository: DefaultToolRepository) -> CatalogStore:
    """``store``'s catalog (``repository`` counts the calls of a store that keeps none)."""
    if isinstance(store, CatalogStore):
        return store
    return FoldedCatalog(store, repository)
