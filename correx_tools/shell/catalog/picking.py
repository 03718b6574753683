"""Which answers a store gives of many sessions: its own catalog and full-text index where
it keeps them (a database of this release's layout), else a fold of each session's events
(`FoldedCatalog`) and a scan of them (`ScannedSearch`), by the same rules; and a usage
report added up by the database where it can (`usage_of`), and the short names of some
sessions among all (`short_names_of`)."""

from __future__ import annotations

from collections.abc import Sequence

from ...core.catalog.listing import SessionQuery
from ...core.catalog.short_names import short_names
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


def short_names_of(catalog: CatalogStore, session_ids: Sequence[str]) -> dict[str, str]:
    """Each of these sessions' short name among every session the catalog lists
    (`short_names` of them all), found by the database where the catalog is a store's own
    (without listing them all)."""
    if isinstance(catalog, CatalogAnswers) and catalog.keeps_catalog:
        return catalog.short_names(session_ids)
    everything, _ = catalog.listed(SessionQuery())
    named = short_names(listed.session_id for listed in everything)
    return {session_id: named[session_id] for session_id in session_ids}


def searchable_of(store: EventStore, repository: DefaultToolRepository) -> SearchableStore:
    """The store itself where it keeps its full-text index, else a scan of its events
    (the sessions picked by `catalog_of`)."""
    if isinstance(store, CatalogAnswers) and store.keeps_catalog:
        return store
    return ScannedSearch(store, catalog_of(store, repository))
