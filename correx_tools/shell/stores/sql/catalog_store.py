"""What a database store answers of many sessions from its catalog and full-text index
(internal base of `SqlEventStore`): the `CatalogStore` and `SearchableStore` questions,
each in one read snapshot, and the catalog's check for ``verify``."""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from datetime import datetime

from ....core.catalog.activity import Activity
from ....core.catalog.facts import SessionFacts
from ....core.catalog.listing import Listed, SessionQuery
from ....core.catalog.searched import FIELDS, Field, SearchHit
from ....core.catalog.usage import Entry, Report, UsageRow
from ....core.catalog.words import terms
from ....core.report.redaction import Redaction
from ..port import StoreLayoutError
from .catalog import counts_of_head, kept_catalog, stored_runs
from .catalog_query import activity, listed
from .catalog_rows import WINDOW_COLUMNS, window_from
from .catalog_usage import usage
from .dialect import Cursor, Database, Dialect, ReadFault
from .index import load_head
from .layout import CATALOG_LAYOUT
from .searching import search, search_values


class CatalogAnswers:
    """Listing, activity and search from the catalog (layout 5 on)."""

    _database: Database
    name: str
    layout: int

    @property
    def keeps_catalog(self) -> bool:
        """Whether the store keeps the catalog and the words (an older one is answered by
        folding and scanning its events: `catalog_of`)."""
        return self.layout >= CATALOG_LAYOUT

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
        with self._catalogue() as (d, cursor):
            return listed(d, cursor, query, limit)

    def activity(
        self, query: SessionQuery, *, since: datetime | None = None, until: datetime | None = None
    ) -> Iterator[Entry]:
        """The activity windows of the sessions ``query`` picks whose quarter lies in
        ``[since, until)`` (UTC; the windows of no time only where neither is given)."""
        with self._catalogue() as (d, cursor):
            found = list(activity(d, cursor, query, since, until))
        return iter(found)

    def usage(self, query: SessionQuery, report: Report) -> tuple[list[UsageRow], UsageRow]:
        """The usage report `usage_rows` makes of `activity`'s windows, added up by the
        database (`catalog_usage`)."""
        with self._catalogue() as (d, cursor):
            return usage(d, cursor, query, report)

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
        with self._catalogue() as (d, cursor):
            return search(d, cursor, terms(text), fields=fields, query=query or SessionQuery(),
                          limit=limit, redaction=redaction or Redaction())  # fmt: skip


def catalog_fault(d: Dialect, cursor: Cursor, session_id: str) -> str | None:
    """What the session's catalog holds that its events do not say (``None``: nothing):
    its facts, calls, activity and the count of its indexed values, each against a fold of
    the events, in the caller's snapshot."""
    kept = kept_catalog(d, cursor, session_id)
    facts, windows, searched = SessionFacts(), Activity(), 0
    for run in stored_runs(d, cursor, session_id):
        facts = facts.taking(run)
        windows = windows.taking(run, times_recorded=facts.times_recorded)
        searched += len(search_values(run))
    if kept is None:
        return "the session has no catalog row" if facts.events else None
    listed_row, _number, kept_searched = kept
    if listed_row.facts != facts:
        return "the catalog's facts do not match the events"
    head = load_head(d, cursor, session_id)
    if head is not None and listed_row.counts != counts_of_head(d, cursor, session_id, head):
        return "the catalog's counts of calls do not match the index"
    rows = cursor.execute(
        d.sql(f"SELECT {', '.join(WINDOW_COLUMNS)} FROM {{activity}} WHERE {{session}} = ?"),
        (d.session_key(session_id),),
    ).fetchall()
    stored = {}
    for row in rows:
        quarter, model, window = window_from(d, row)
        if (quarter, model) in stored:
            return "the catalog holds a window twice"
        stored[(quarter, model)] = window
    if stored != dict(windows.windows):
        return "the catalog's activity does not match the events"
    if kept_searched != searched:
        return f"the full-text index holds {kept_searched} values of the {searched} the events give"
    return None
