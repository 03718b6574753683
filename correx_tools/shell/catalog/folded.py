"""The catalog of a store that keeps none (memory, a JSONL log, an older database): each
session's events read and folded by the catalog's rules, its calls counted by the
repository (from a store's index where it has one)."""

from __future__ import annotations

from collections.abc import Iterator
from datetime import datetime
from itertools import islice

from ...core.catalog.activity import Activity, quarter_of
from ...core.catalog.facts import SessionFacts
from ...core.catalog.listing import Listed, SessionQuery, counts_of, picks, recent_first
from ...core.catalog.usage import Entry
from ...core.tools.ids import SessionId
from ..replay.repository import DefaultToolRepository
from ..stores.port import EventStore, session_events

RUN = 5_000
"""Events folded at a time."""


class FoldedCatalog:
    """A store's catalog, folded from its events on each question."""

    def __init__(self, store: EventStore, repository: DefaultToolRepository) -> None:
        self._store = store
        self._repository = repository
        self._folded: dict[SessionId, tuple[Listed, Activity]] | None = None

    def listed(self, query: SessionQuery, *, limit: int | None = None) -> tuple[list[Listed], int]:
        """The sessions ``query`` picks, most recent first (at most ``limit``), and how many
        it picks in all."""
        picked = recent_first(listed for listed, _ in self._all().values()
                              if picks(listed, query))  # fmt: skip
        return (picked if limit is None else picked[:limit]), len(picked)

    def activity(
        self, query: SessionQuery, *, since: datetime | None = None, until: datetime | None = None
    ) -> Iterator[Entry]:
        """The activity windows of the sessions ``query`` picks in ``[since, until)``."""
        for listed, activity in self._all().values():
            if picks(listed, query):
                yield from windows_in(listed, activity, since, until)

    def _all(self) -> dict[SessionId, tuple[Listed, Activity]]:
        if self._folded is None:
            self._folded = {session: self._fold(session) for session in self._store.sessions()}
        return self._folded

    def _fold(self, session: SessionId) -> tuple[Listed, Activity]:
        facts, activity = SessionFacts(), Activity()
        with session_events(self._store, session) as events:
            # A run at a time: a session of any size is folded in bounded memory. Whether
            # its times are recorded is said by its first event, so the first run knows.
            while run := list(islice(events, RUN)):
                facts = facts.taking(run)
                activity = activity.taking(run, times_recorded=facts.times_recorded)
        with self._repository.view(session) as view:
            # The repository is lenient (the caller's): a refused event is counted, not
            # raised; an undecodable one raises `StoreReadError` as any read does.
            summary = view.summary().unwrap()
        listed = Listed(session_id=session, facts=facts, counts=counts_of(summary))
        return listed, activity


def windows_in(
    listed: Listed, activity: Activity, since: datetime | None, until: datetime | None
) -> Iterator[Entry]:
    """The session's windows whose quarter lies in ``[since, until)`` (UTC), as
    `CatalogStore.activity` gives them: those of no time only where neither is given."""
    low = None if since is None else quarter_of(since)
    high = None if until is None else quarter_of(until)
    for (quarter, model), window in activity.windows.items():
        if quarter is None:
            if low is None and high is None:
                yield listed, quarter, model, window
            continue
        if (low is None or quarter >= low) and (high is None or quarter < high):
            yield listed, quarter, model, window
