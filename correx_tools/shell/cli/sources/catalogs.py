"""The catalog and the search a command of many sessions reads (`catalog_of`,
`searchable_of`): a store's own where it keeps them; for any other, its events folded and
scanned with a lenient repository (`repository_for`, with its notes), made only then, so
that a command over a store that keeps its catalog loads none of the replay machinery."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ...catalog.picking import catalog_of, searchable_of
from ...catalog.port import CatalogStore, SearchableStore
from ...stores.port import EventStore

if TYPE_CHECKING:
    from ...replay.repository import DefaultToolRepository


def catalog_for(store: EventStore, label: str) -> CatalogStore:
    """The catalog of ``store`` (named ``label`` in notes)."""
    return catalog_of(store, lambda: _repository(store, label))


def searchable_for(store: EventStore, label: str) -> SearchableStore:
    """The search of ``store`` (named ``label`` in notes)."""
    return searchable_of(store, lambda: _repository(store, label))


def _repository(store: EventStore, label: str) -> DefaultToolRepository:
    from .loading import repository_for  # noqa: PLC0415 - only a store that keeps no catalog

    return repository_for(store, label, lenient=True)
