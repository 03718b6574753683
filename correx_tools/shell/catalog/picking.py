"""Which answers a store gives of many sessions: its own catalog and full-text index where
it keeps them (a database of this release's layout), else a fold of each session's events
(`FoldedCatalog`) and a scan of them (`ScannedSearch`), by the same rules; and a usage
report added up by the database where it can (`usage_of`)."""

from __future__ import annotations

from ...core.catalog.listing import SessionQuery
from ...core.catalog.usage import Report, UsageRow, usage_rows
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


def usage_of(
    catalog: CatalogStore, query: SessionQuery, report: Report
) -> tuple[list[UsageRow], UsageRow]:
    """The usage report of the sessions ``query`` picks (`usage_rows` of their activity in
    the report's range), added up by the database where the catalog is a store's own."""
    if isinstance(catalog, CatalogAnswers) and catalog.keeps_catalog:
        return catalog.usage(query, report)
    entries = catalog.activity(query, since=report.since, until=report.until)
    return usage_rows(entries, report.by, local=report.local, prices=report.prices)


def searchable_of(store: EventStore, repository: DefaultToolRepository) -> SearchableStore:
    """The store itself where it keeps its full-text index, else a scan of its events
    (the sessions picked by `catalog_of`)."""
    if isinstance(store, CatalogAnswers) and store.keeps_catalog:
        return store
    return ScannedSearch(store, catalog_of(store, repository))
