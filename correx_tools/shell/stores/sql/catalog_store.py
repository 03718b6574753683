"""What a database store answers of many sessions from its catalog and full-text index
(internal base of `SqlEventStore`): the `CatalogStore` and `SearchableStore` questions,
each in one read snapshot. What answers them is loaded when first asked: a command that
asks none of them never loads it."""

# ruff: noqa: PLC0415 - each question's modules are imported where it is asked

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from typing import TYPE_CHECKING

from ....core.catalog.searched import FIELDS
from ..port import StoreLayoutError
from .dialect import ReadFault
from .layout import CATALOG_LAYOUT, catalog_whole

if TYPE_CHECKING:
    from datetime import datetime

    from ....core.catalog.listing import Listed, SessionQuery
    from ....core.catalog.searched import Field, SearchHit
    from ....core.catalog.stacks import Layer, Stack
    from ....core.catalog.usage import Entry, Report, UsageRow
    from ....core.report.redaction import Redaction
    from .dialect import Cursor, Database, Dialect


class CatalogAnswers:
    """Listing, activity and search from the catalog (layout 5 on)."""

    _database: Database
    name: str
    layout: int

    _catalog_whole: bool | None = None
    """Whether the catalog has every column read (`catalog_whole`), once asked."""

    @property
    def keeps_catalog(self) -> bool:
        """Whether the store keeps the catalog and the words (an older one is answered by
        folding and scanning its events: `catalog_of`; so is one whose catalog lacks a
        column, until it is next opened for writing)."""
        if self.layout < CATALOG_LAYOUT:
            return False
        if self._catalog_whole is None:
            try:
                with self._database.snapshot() as cursor:
                    self._catalog_whole = catalog_whole(cursor, self._database.dialect)
            except ReadFault as fault:
                raise StoreLayoutError(
                    f"{self.name}: the database is unavailable: {fault.reason}"
                ) from None
        return self._catalog_whole

    @contextmanager
    def _catalogue(self) -> Iterator[tuple[Dialect, Cursor]]:
        """The catalog in one read snapshot (an older store's, or a database gone, said in
        one line)."""
        if not self.keeps_catalog:
            raise StoreLayoutError(
                f"{self.name}: written by an older release and keeps no catalog; "
                f"upgrade it with: correx-tools reindex {self.name}"
            )
        try:
            with self._database.snapshot() as cursor:
                yield self._database.dialect, cursor
        except ReadFault as fault:
            raise StoreLayoutError(
                f"{self.name}: the database is unavailable: {fault.reason}"
            ) from None

    def listed(self, query: SessionQuery, *, limit: int | None = None) -> tuple[list[Listed], int]:
        """The sessions ``query`` picks, most recent first (at most ``limit``), and how many
        it picks in all."""
        from .catalog_query import listed

        with self._catalogue() as (d, cursor):
            return listed(d, cursor, query, limit)

    def short_names(self, session_ids: Sequence[str]) -> dict[str, str]:
        """Each of these sessions' short name among every session the store holds
        (`core.catalog.short_names` of them all), from the index of their names."""
        from .catalog_query import short_names

        with self._catalogue() as (d, cursor):
            return short_names(d, cursor, session_ids)

    def activity(
        self, query: SessionQuery, *, since: datetime | None = None, until: datetime | None = None
    ) -> Iterator[Entry]:
        """The activity windows of the sessions ``query`` picks whose quarter lies in
        ``[since, until)`` (UTC; the windows of no time only where neither is given)."""
        from .catalog_query import activity

        with self._catalogue() as (d, cursor):
            found = list(activity(d, cursor, query, since, until))
        return iter(found)

    def usage(self, query: SessionQuery, report: Report) -> tuple[list[UsageRow], UsageRow]:
        """The usage report `usage_rows` makes of `activity`'s windows, added up by the
        database (`catalog_usage`)."""
        from .catalog_usage import usage

        with self._catalogue() as (d, cursor):
            return usage(d, cursor, query, report)

    def stacked(
        self, query: SessionQuery, report: Report, stack: Stack, *, most: int | None = None
    ) -> list[Layer]:
        """The layers of each day's usage `stacked` makes of `activity`'s windows (``most``
        of them, `stacks.MOST` unless given), added up by the database (`catalog_stacks`)."""
        from .catalog_stacks import stacked_usage

        with self._catalogue() as (d, cursor):
            if most is None:
                return stacked_usage(d, cursor, query, report, stack)
            return stacked_usage(d, cursor, query, report, stack, most=most)

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
        ``text``, of the sessions ``query`` picks, newest first (at most ``limit``), each
        with a masked snippet."""
        from ....core.catalog.listing import SessionQuery
        from ....core.catalog.words import terms
        from ....core.report.redaction import Redaction
        from .searching import search

        with self._catalogue() as (d, cursor):
            return search(d, cursor, terms(text), fields=fields, query=query or SessionQuery(),
                          limit=limit, redaction=redaction or Redaction())  # fmt: skip
