"""Every session of the store, with its counts and times: the page's list, filtered and sorted.

Each row is the one ``correx-tools sessions --json`` prints for the session,
with its ref and the times of its first and last events. A row is read once
and kept with the session's last sequence; it is read again only when the
session has grown. A thread reads every row when the server starts and then
looks for grown sessions every few seconds, so sorting ten thousand sessions
by a count needs no store read; a page of rows sorted by name is read on
demand (and checked against the store) even before that first pass ends.
"""

from __future__ import annotations

import contextlib
import threading
import time
from collections.abc import Callable
from typing import Any, final

from returns.result import Success

from ....core.lifecycle.description import described
from ....core.lifecycle.events import StoredEvent
from ....core.lifecycle.status import ToolInvocationStatus
from ....core.replay.talk_summary import TalkSummary
from ....core.report.redaction import Redaction
from ....core.report.refs import ref_of
from ....core.tools.ids import SessionId
from ...replay.documents import iso_time, session_row
from ...replay.repository import DefaultToolRepository
from ...stores.port import EventStore, SequencedStore, StoreReadError
from ...stores.said import conversation_events
from ...transcripts.description import description_json
from ..errors import VERIFY_HINT
from .owners import Owners


def _count(*values: int | None) -> int:
    """A sum of counts to sort by; a damaged session's, which has none, comes first."""
    return -1 if None in values else sum(v for v in values if v is not None)


SORTS: dict[str, Callable[[dict[str, Any]], Any]] = {
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
    "title": lambda row: (row.get("title") or "").casefold(),
    "model": lambda row: ", ".join(row.get("models") or ()),
    "tokens": lambda row: -1 if not row.get("tokens") else row["tokens"]["total"],
    "agent": lambda row: row.get("agent") or "",
    "failures": lambda row: _count(
        row["statuses"]["failed"], row["statuses"]["rejected"], row["exited_nonzero"]
    ),
    "project": lambda row: row["last_time"] or "",  # grouped: see `Catalog.page`
}
"""The keys a list can be sorted by (``-key``: descending)."""


def _grouped(
    rows: list[tuple[SessionId, dict[str, Any]]], oldest_first: bool
) -> list[tuple[SessionId, dict[str, Any]]]:
    """The rows grouped by project (the sessions without one last), the group whose latest
    session is most recent first, and each group's most recent session first (``-project``:
    the oldest first, throughout)."""
    latest: dict[str, str] = {}
    for _, row in rows:
        project = row.get("project") or ""
        latest[project] = max(latest.get(project, ""), row["last_time"] or "")

    def order(pair: tuple[SessionId, dict[str, Any]]) -> tuple[bool, str, str, str]:
        project = pair[1].get("project") or ""
        return (bool(project), latest[project], project, pair[1]["last_time"] or "")

    ordered = sorted(rows, key=order, reverse=True)
    if oldest_first:
        ordered = sorted(rows, key=lambda pair: (not order(pair)[0], *order(pair)[1:]))
    return ordered


@final
class Catalog:
    """The sessions of one store as rows, kept up to date by a thread of their own."""

    def __init__(
        self, store: EventStore, repository: DefaultToolRepository, redaction: Redaction | None
    ) -> None:
        self._store, self._repository, self._redaction = store, repository, redaction
        self._rows: dict[str, dict[str, Any]] = {}
        self._talk: dict[str, tuple[int, TalkSummary]] = {}  # summed through a sequence
        # Bumped when a session's events are replaced: a row read before is not kept.
        self._generation: dict[str, int] = {}
        self._ids: tuple[SessionId, ...] = ()
        self._owners = Owners(store)
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
        """Drop the session's row and conversation summary: its events were replaced (a
        transcript rewritten in place), so neither its length nor its first events say
        whether what is kept still holds."""
        with self._lock:
            self._rows.pop(session_id, None)
            self._talk.pop(session_id, None)
            self._generation[session_id] = self._generation.get(session_id, 0) + 1

    def _look(self) -> tuple[SessionId, ...]:
        found = self._store.sessions()
        with self._lock:
            self._ids = found
        self._owners.look_again()
        return found

    def row(self, session_id: SessionId, last: int | None = None) -> dict[str, Any]:
        """The session's row, read again if the session grew past the kept one, with the
        machine and the user it came from in a team's store (``None`` elsewhere)."""
        machine, user = self._owners.of(session_id)
        return {**self._row(session_id, last), "machine": machine, "user": user}

    def _row(self, session_id: SessionId, last: int | None) -> dict[str, Any]:
        if last is None:
            last = self._repository.last_sequence(session_id)
        with self._lock:
            kept = self._rows.get(session_id)
            generation = self._generation.get(session_id, 0)
        if kept is not None and kept["events"] == last:
            return kept
        summary = self._repository.summary(session_id, at=last)
        if not isinstance(summary, Success):
            # Even a lenient fold refuses events that do not hold together (a gap, one that
            # cannot be read): the session is listed as damaged, the others as they are.
            row = self._damaged_row(session_id, last, summary.failure().message)
        else:
            first, final = self._ends(session_id, last)
            transcript = description_json(described(() if first is None else (first,)))
            talk = self._talk_through(session_id, last)  # summed on from the last look
            row = session_row(summary.unwrap(), self._redaction, transcript=transcript, talk=talk)
            # A transcript that records no time gave its steps stand-ins that keep their
            # order only: none is shown as the session's first or last time.
            timed = transcript is None or transcript["times_recorded"] is not False
            row["first_time"] = None if first is None or not timed else iso_time(first.recorded_at)
            row["last_time"] = None if final is None or not timed else iso_time(final.recorded_at)
            row["damaged"] = None
        row["ref"] = ref_of(session_id, self._redaction)
        with self._lock:
            if self._generation.get(session_id, 0) == generation:  # not replaced meanwhile
                self._rows[session_id] = row
        return row

    def _talk_through(self, session_id: SessionId, last: int) -> TalkSummary:
        """The session's conversation summed through ``last`` from its conversation events
        alone, going on from the summary kept (a session only grows, or is replaced and
        forgotten; one shorter than the summary is summed again)."""
        with self._lock:
            through, kept = self._talk.get(session_id, (0, TalkSummary()))
            generation = self._generation.get(session_id, 0)
        if through > last:
            through, kept = 0, TalkSummary()
        with conversation_events(self._store, session_id, after=through) as said:
            talk = kept.taking(s.event for s in said if s.sequence <= last)
        with self._lock:
            if self._generation.get(session_id, 0) == generation:
                self._talk[session_id] = (last, talk)
        return talk

    def _damaged_row(self, session_id: SessionId, last: int, why: str) -> dict[str, Any]:
        """The row of a session whose events do not hold together: what is known without
        folding them (its last sequence), no counts, and why, naming ``verify``."""
        shown = self._shown
        return {
            "session_id": shown(session_id),
            "events": last,
            "invocations": None,
            "statuses": {status.value: None for status in ToolInvocationStatus},
            "exited_nonzero": None,
            "refused_events": None,
            "transcript": None,
            "first_time": None,
            "last_time": None,
            "damaged": f"{shown(why)} ({VERIFY_HINT})",
        }

    def _shown(self, session_id: str) -> str:
        return session_id if self._redaction is None else self._redaction.text(session_id)

    def _ends(
        self, session_id: SessionId, last: int
    ) -> tuple[StoredEvent | None, StoredEvent | None]:
        """The session's first and last events (the first may describe where it came from)."""
        if last == 0:
            return None, None
        first = next(iter(self._store.read(session_id)), None)
        final = next(iter(self._store.read(session_id, after=last - 1)), None)
        return first, final

    def page(
        self,
        text: str,
        sort: str,
        offset: int,
        limit: int,
        *,
        machine: str | None = None,
        user: str | None = None,
    ) -> tuple[int, list[dict[str, Any]]]:
        """The rows whose shown id holds ``text`` (any case), of ``machine`` and ``user``
        where given, sorted, from ``offset``."""
        descending, key = sort.startswith("-"), sort.removeprefix("-")
        ids = self.ids()
        if machine is not None or user is not None:
            ids = tuple(s for s in ids if self._owned(s, machine, user))
        needle = text.casefold()
        if key == "session":
            # By name: the ids are sorted already, and only the page's rows are read.
            chosen = [s for s in ids if needle in self._shown(s).casefold()] if needle else ids
            chosen = list(reversed(chosen)) if descending else list(chosen)
            return len(chosen), [self.row(s) for s in chosen[offset : offset + limit]]
        if not self._read_once.is_set():
            self.refresh()
        with self._lock:
            rows = [(s, self._rows[s]) for s in ids if s in self._rows]
        if needle:
            rows = [(s, r) for s, r in rows if needle in r["session_id"].casefold()]
        order = SORTS[key]
        if key == "project":
            rows = _grouped(rows, descending)
        else:
            rows.sort(key=lambda pair: order(pair[1]), reverse=descending)
        # The page's rows are checked against the store: a row shown is never behind.
        return len(rows), [self.row(s) for s, _ in rows[offset : offset + limit]]

    def _owned(self, session_id: str, machine: str | None, user: str | None) -> bool:
        found_machine, found_user = self._owners.of(session_id)
        return machine in (None, found_machine) and user in (None, found_user)

    def refresh(self) -> None:
        """Look at every session once: read the rows of those new or grown since."""
        store = self._store
        for session_id in self._look():
            if self._stop.is_set():
                return
            try:
                last = None
                if isinstance(store, SequencedStore):
                    last = store.last_sequence(session_id)
                self.row(session_id, last)
            except StoreReadError:
                continue  # a damaged session: its own page says what is wrong
        self._read_once.set()

    def start(self, every: float = 3.0) -> None:
        """Keep the rows up to date from a thread: a pass, then another every few seconds
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
