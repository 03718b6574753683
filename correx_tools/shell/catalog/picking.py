"""Which answers a store gives of many sessions: its own catalog and full-text index where
it keeps them (a database of this release's layout), else a fold of each session's events
(`FoldedCatalog`) and a scan of them (`ScannedSearch`), by the same rules; and a usage
report and its layers by day added up by the database where it can (`usage_of`,
`stacked_of`), and the short names of some sessions among all (`short_names_of`).

A fold needs a repository to count each session's calls; it is asked of ``repository``
(a function) only for a store that keeps no catalog, and the fold and the scan are loaded
only then: a command over a store that keeps its catalog loads no replay machinery."""

# ruff: noqa: PLC0415 - the fold and the scan are imported where a store needs them

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING

from ...core.catalog.listing import SessionQuery
from ...core.catalog.short_names import short_names
from ..stores.port import EventStore
from ..stores.sql.catalog_store import CatalogAnswers
from .port import CatalogStore, SearchableStore

if TYPE_CHECKING:
    from ...core.catalog.stacks import Layer, Stack
    from ...core.catalog.usage import Report, UsageRow
    from ..replay.repository import DefaultToolRepository

Repository = Callable[[], "DefaultToolRepository"]
"""What makes the repository a fold counts calls by (called only when one is needed)."""


def own_catalog(store: object) -> CatalogAnswers | None:
    """The store itself where it keeps its catalog and full-text index, else ``None``."""
    return store if isinstance(store, CatalogAnswers) and store.keeps_catalog else None


def catalog_of(store: EventStore, repository: Repository) -> CatalogStore:
    """The store itself where it keeps its catalog, else its events folded (by the
    repository ``repository`` makes, which counts each session's calls)."""
    own = own_catalog(store)
    if own is not None:
        return own
    from .folded import FoldedCatalog

    return FoldedCatalog(store, repository())


def usage_of(
    catalog: CatalogStore, query: SessionQuery, report: Report
) -> tuple[list[UsageRow], UsageRow]:
    """The usage report of the sessions ``query`` picks (`usage_rows` of their activity in
    the report's range), added up by the database where the catalog is a store's own."""
    own = own_catalog(catalog)
    if own is not None:
        return own.usage(query, report)
    from ...core.catalog.usage import usage_rows

    entries = catalog.activity(query, since=report.since, until=report.until)
    return usage_rows(entries, report.by, local=report.local, prices=report.prices)


def stacked_of(
    catalog: CatalogStore, query: SessionQuery, report: Report, stack: Stack
) -> list[Layer]:
    """Each day's usage of the sessions ``query`` picks split by ``stack`` (`stacked` of
    their activity in the report's range, by day), added up by the database where the
    catalog is a store's own."""
    own = own_catalog(catalog)
    if own is not None:
        return own.stacked(query, report, stack)
    from ...core.catalog.stacks import stacked

    entries = catalog.activity(query, since=report.since, until=report.until)
    return stacked(entries, stack, local=report.local, prices=report.prices)


def short_names_of(catalog: CatalogStore, session_ids: Sequence[str]) -> dict[str, str]:
    """Each of these sessions' short name among every session the catalog lists
    (`short_names` of them all), found by the database where the catalog is a store's own
    (without listing them all)."""
    own = own_catalog(catalog)
    if own is not None:
        return own.short_names(session_ids)
    everything, _ = catalog.listed(SessionQuery())
    named = short_names(listed.session_id for listed in everything)
    return {session_id: named[session_id] for session_id in session_ids}


def searchable_of(store: EventStore, repository: Repository) -> SearchableStore:
    """The store itself where it keeps its full-text index, else a scan of its events
    (the sessions picked by `catalog_of`)."""
    own = own_catalog(store)
    if own is not None:
        return own
    from .scanned import ScannedSearch

    return ScannedSearch(store, catalog_of(store, repository))
