"""Every session of the store, listed as ``correx-tools sessions`` lists them: the page's list,
picked by the command's filters, most recent first (or sorted by a column), paged.

Each row is the command's (`shell.catalog.rows`), with the session's ref and, for a session
whose events do not hold together, why (``damaged``). A store that keeps its catalog at
write time answers the list, the usage and a search itself (`catalog_of`,
`searchable_of`), and the sessions of a page are checked for damage (a cheap question to
the store's index); for any other, the catalog keeps each session folded (`kept`) and
moves it on as it grows: a thread folds every session when the server starts, then
looks for grown ones every few seconds, and the rows of a page are checked against the
store before they are shown, so a row shown is never behind.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable, Iterator
from datetime import datetime
from typing import Any, final

from returns.result import Success

from ....core.catalog.listing import Listed, SessionQuery, picks, recent_first
from ....core.catalog.short_names import short_names
from ....core.catalog.usage import Entry
from ....core.lifecycle.status import ToolInvocationStatus
from ....core.replay.pricing import PriceTable
from ....core.report.redaction import Redaction
from ....core.report.refs import ref_of
from ....core.tools.ids import SessionId
from ...catalog.folded import windows_in
from ...catalog.picking import catalog_of, searchable_of
from ...catalog.port import CatalogStore, SearchableStore
from ...catalog.rows import session_json
from ...catalog.scanned import ScannedSearch
from ...replay.repository import DefaultToolRepository
from ...stores.port import EventStore, SequencedStore, StoreReadError
from ..errors import VERIFY_HINT
from .grouping import grouped
from .kept import Kept, fold_on, with_activity


def _count(*values: int | None) -> int:
    """A sum of counts to sort by; a damaged session's, which has none, comes first."""
    return -1 if None in values else sum(v for v in values if v is not None)


SORTS: dict[str, Callable[[dict[str, Any]], Any]] = {
    "recent": lambda row: row["last_time"] or "",  # the command's order: see `Catalog.page`
    "session": lambda row: row["session_id"],
    "events": lambda row: row["events"],
    "invocations": lambda row: _count(row["invocations"]),
    "completed": lambda row: _count(row["statuses"]["completed"]),
    "failed": lambda row: _count(row["statuses"]["failed"]),
    "exited_nonzero": lambda row: _count(row["exited_nonzero"]),
    "rejected": lambda row: _count(row["statuses"]["rejected"]),
    "open": lambda row: _count(row["statuses"]["requested"], row["statuses"]["started"]),
    "refused": lambda row: _count(row["refused_events"]),
    "first": lambda row: row["first_time"] or "",
    "last": lambda row: row["last_time"] or "",
    "title": lambda row: (row["title"] or "").casefold(),
    "model": lambda row: ", ".join(row["models"]),
    "tokens": lambda row: -1 if not row["tokens"] else row["tokens"]["total"],
    "cost": lambda row: -1.0 if row["cost"] is None else row["cost"],
    "agent": lambda row: row["agent"] or "",
    "failures": lambda row: _count(
        row["statuses"]["failed"], row["statuses"]["rejected"], row["exited_nonzero"]
    ),
    "project": lambda row: row["last_time"] or "",  # grouped: see `grouping`
}
"""The keys a list can be sorted by (``-key``: descending; ``recent``, the default, is the
most recent first, as the command lists them, and ``-recent`` the oldest first)."""

Item = Listed | Kept
"""A session of a list: listed, or kept as damaged."""


@final
class Catalog:
    """The sessions of one store as the command lists them, kept up to date by a thread."""

    def __init__(self, store: EventStore, repository: DefaultToolRepository,
                 redaction: Redaction | None, prices: PriceTable) -> None:  # fmt: skip
        self._store, self._repository = store, repository
        self._redaction, self._prices = redaction, prices
        own: object = catalog_of(store, lambda: repository)
        self.answers: CatalogStore = own if own is store and isinstance(own, CatalogStore) else self
        """What answers the list and the usage: the store's own catalog, else this one."""
        index: object = searchable_of(store, lambda: repository)
        self.indexed = index is store and isinstance(index, SearchableStore)
        """Whether the store keeps a full-text index of what agents did."""
        self.searchable: SearchableStore = (
            index if self.indexed and isinstance(index, SearchableStore)
            else ScannedSearch(store, self.answers)
        )  # fmt: skip
        """What answers a search: the store's index, else a scan of the sessions this
        catalog picks (never a second fold of every session)."""
        self._kept: dict[SessionId, Kept] = {}
        self._rows: dict[str, tuple[Item, dict[str, Any]]] = {}  # each item's row, as built
        self._damages: dict[str, tuple[int, str | None]] = {}  # a listed session's, by length
        # Bumped when a session's events are replaced: what was folded before is not kept.
        self._generation: dict[str, int] = {}
        self._ids: tuple[SessionId, ...] = ()
        self._names: tuple[tuple[SessionId, ...], dict[str, str]] = ((), {})
        self._lock = threading.Lock()
        self._read_once = threading.Event()
        self._stop = threading.Event()
        self._thread: threading.Thread | None = None

    def ids(self, *, fresh: bool = False) -> tuple[SessionId, ...]:
        """Every session of the store, sorted: as the last look found them, or ``fresh``."""
        with self._lock:
            known = self._ids
        if fresh or not known:
            known = self._look()
        return known

    def forget(self, session_id: SessionId) -> None:
        """Drop what is kept of the session: its events were replaced (a transcript
        rewritten in place), so neither its length nor its first events say whether what
        is kept still holds."""
        with self._lock:
            self._kept.pop(session_id, None)
            self._rows.pop(session_id, None)
            self._damages.pop(session_id, None)
            self._generation[session_id] = self._generation.get(session_id, 0) + 1

    def short_names(self) -> dict[str, str]:
        """Each session's shortest unique start, as the command's list names it
        (`short_names`), for the ids shown as they are (a masked one is named by its ref)."""
        ids = self.ids()
        with self._lock:
            if self._names[0] is ids:
                return self._names[1]
        names = short_names(i for i in ids if ref_of(i, self._redaction) == i)
        with self._lock:
            self._names = (ids, names)
        return names

    def _look(self) -> tuple[SessionId, ...]:
        found = self._store.sessions()
        with self._lock:
            self._ids = found
        return found

    def kept(self, session_id: SessionId, last: int | None = None) -> Kept:
        """The session folded through its last event (``last``, if known), moved on from
        what was kept if it grew."""
        if last is None:
            last = self._repository.last_sequence(session_id)
        with self._lock:
            kept = self._kept.get(session_id)
            generation = self._generation.get(session_id, 0)
        if kept is not None and kept.through == last:
            return kept
        kept = fold_on(self._store, self._repository, session_id, last, kept)
        self._keep(kept, generation)
        return kept

    def _keep(self, kept: Kept, generation: int) -> None:
        with self._lock:
            if self._generation.get(kept.session_id, 0) == generation:  # not replaced meanwhile
                self._kept[kept.session_id] = kept

    def row(self, session_id: SessionId) -> dict[str, Any]:
        """The session's row, now (folded here, from its first, last and conversation
        events, whether or not the store keeps a catalog)."""
        kept = self.kept(session_id)
        return self._row(kept if kept.listed is None else kept.listed)

    def _row(self, item: Item) -> dict[str, Any]:
        """The item's row (built once for each version of it)."""
        with self._lock:
            built = self._rows.get(item.session_id)
        if built is not None and (built[0] is item or built[0] == item):
            return built[1]
        if isinstance(item, Kept):
            row = self._damaged_row(item)
        else:
            row = session_json(item, self._redaction, self._prices)
            row["session_id"] = self._shown(item.session_id)
            row["damaged"] = None
        row["ref"] = ref_of(item.session_id, self._redaction)
        with self._lock:
            self._rows[item.session_id] = (item, row)
        return row

    def _damaged_row(self, kept: Kept) -> dict[str, Any]:
        """The row of a session whose events do not hold together: what is known without
        folding them (its last sequence), no counts, and why, naming ``verify``."""
        shown = self._shown
        return {
            "session_id": shown(kept.session_id), "events": kept.through, "invocations": None,
            "statuses": {status.value: None for status in ToolInvocationStatus},
            "exited_nonzero": None, "refused_events": None, "transcript": None, "title": None,
            "title_from": None, "agent": None, "project": None, "models": [], "tokens": None,
            "said": None, "first_time": None, "last_time": None, "cost": None,
            "unpriced_models": [], "machine": None, "user": None,
            "damaged": f"{shown(kept.damaged or '')} ({VERIFY_HINT})",
        }  # fmt: skip

    def _shown(self, session_id: str) -> str:
        return session_id if self._redaction is None else self._redaction.text(session_id)

    # -- the catalog of a store that keeps none (`CatalogStore`, over what is kept) ----------

    def listed(self, query: SessionQuery, *, limit: int | None = None) -> tuple[list[Listed], int]:
        """The sessions ``query`` picks, most recent first (at most ``limit``), and how many
        it picks in all."""
        picked = recent_first(k.listed for k in self._every() if k.listed is not None
                              and picks(k.listed, query))  # fmt: skip
        return (picked if limit is None else picked[:limit]), len(picked)

    def activity(
        self, query: SessionQuery, *, since: datetime | None = None, until: datetime | None = None
    ) -> Iterator[Entry]:
        """The activity windows of the sessions ``query`` picks in ``[since, until)``."""
        for each in self._every():
            if each.listed is None or not picks(each.listed, query):
                continue
            with self._lock:
                generation = self._generation.get(each.session_id, 0)
            kept = with_activity(self._store, each)
            self._keep(kept, generation)
            if kept.activity is not None:  # always, for a session listed
                yield from windows_in(each.listed, kept.activity, since, until)

    def _every(self) -> list[Kept]:
        if not self._read_once.is_set():
            self.refresh()
        with self._lock:
            return list(self._kept.values())

    def _damaged(self) -> list[Kept]:
        """The sessions kept as damaged (none where the store keeps the catalog), by id."""
        if self.answers is not self:
            return []
        return sorted((k for k in self._every() if k.listed is None), key=lambda k: k.session_id)

    # -- the page's list ------------------------------------------------------------------------

    def page(self, text: str, query: SessionQuery, sort: str, offset: int,
             limit: int) -> tuple[int, list[dict[str, Any]]]:  # fmt: skip
        """The sessions ``query`` picks whose shown id holds ``text`` (any case), sorted,
        from ``offset``; the damaged ones (which no filter can judge) where none is given."""
        descending, key = sort.startswith("-"), sort.removeprefix("-")
        needle = text.casefold()
        whole = bool(needle) or key != "recent" or descending
        picked, total = self.answers.listed(query, limit=None if whole else offset + limit)
        items: list[Item] = [*picked, *(self._damaged() if query.asks_nothing else ())]
        total += len(items) - len(picked)
        if whole:
            if needle:
                items = [i for i in items if needle in self._shown(i.session_id).casefold()]
            total = len(items)
            if key == "project":
                items = grouped(items, [self._row(i) for i in items], oldest_first=descending)
            elif key == "recent":
                items.reverse()  # descending: the oldest first
            else:
                order = SORTS[key]
                items.sort(key=lambda item: order(self._row(item)), reverse=descending)
        return total, [self._fresh(item) for item in items[offset : offset + limit]]

    def _fresh(self, item: Item) -> dict[str, Any]:
        """The item's row, checked against the store where the catalog is kept here, and
        for damage where the store keeps it."""
        if self.answers is not self:
            if isinstance(item, Listed) and (why := self._damage(item)) is not None:
                session = SessionId(item.session_id)
                return self._row(Kept(session_id=session, through=item.facts.events, damaged=why))
            return self._row(item)
        kept = self.kept(SessionId(item.session_id))
        return self._row(kept if kept.listed is None else kept.listed)

    def _damage(self, listed: Listed) -> str | None:
        """Why the events of a session a store lists do not hold together (``None``: they
        do), asked once for each length of it: its catalog row is kept as it was written,
        whatever happened to its events since."""
        last = listed.facts.events
        with self._lock:
            known = self._damages.get(listed.session_id)
        if known is not None and known[0] == last:
            return known[1]
        summary = self._repository.summary(SessionId(listed.session_id), at=last)
        why = None if isinstance(summary, Success) else summary.failure().message
        with self._lock:
            self._damages[listed.session_id] = (last, why)
        return why

    def refresh(self) -> None:
        """Look at every session once: fold on those new or grown since (where the store
        keeps no catalog of its own)."""
        store = self._store
        for session_id in self._look():
            if self._stop.is_set() or self.answers is not self:
                break
            try:
                last = None
                if isinstance(store, SequencedStore):
                    last = store.last_sequence(session_id)
                self.kept(session_id, last)
            except StoreReadError:
                continue  # a session that cannot be read: its own page says what is wrong
        self._read_once.set()

    def start(self, every: float = 3.0) -> None:
        """Keep the catalog up to date from a thread: a pass, then another every few seconds
        (longer when a pass is long, so a large store is not read without a pause)."""

        def keep() -> None:
            while not self._stop.is_set():
                started = time.monotonic()
                # A pass that fails (the database went away) is tried again; every request
                # reads what it shows itself, and says what is wrong.
                with contextlib.suppress(Exception):
                    self.refresh()
                self._stop.wait(max(every, 10 * (time.monotonic() - started)))

        self._thread = threading.Thread(target=keep, name="correx-catalog", daemon=True)
        self._thread.start()

    def stop(self) -> None:
        """Stop the thread (it ends within its current look at one session)."""
        self._stop.set()
        if self._thread is not None:
            self._thread.join(timeout=5)
