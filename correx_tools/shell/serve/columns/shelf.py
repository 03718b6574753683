"""The columns of the sessions being looked at: read once, caught up as they grow, kept in bounds.

A session's columns are read from the store's index a piece at a time
(`DefaultToolRepository.entries_before`, walking back from the last event), each
piece in its own read, so other questions are answered in between; a store
without an index (a JSONL log) gives its entries from one pass over its events.
When a question is about a sequence the columns do not reach yet, they are
caught up from the entries changed since (`SessionColumns.caught_up`). Columns
of the sessions asked about least recently are dropped past a memory budget.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Callable, Iterator
from typing import final

from returns.result import Success

from ....core.lifecycle.events import StoredEvent
from ....core.lifecycle.transitions import TransitionError
from ....core.replay.stored_index import InvocationEntry
from ....core.tools.ids import SessionId
from ...replay.replayer import unanswered
from ...replay.repository import DefaultToolRepository
from .columns import Refusal, SessionColumns, columns_of
from .memory import give_back
from .stats_at import counts_at, endings, open_at, tool_stats_at
from .timeline import bounds

PIECE = 5_000
"""Entries read at a time."""
BUDGET_BYTES = 64_000_000
"""About how much the columns kept may take (the most recent session's are always kept)."""


def _size(columns: SessionColumns) -> int:
    # The columns (eight arrays of a word or less per call, its id, two small arrays per
    # event) and what is built from them for the page (about as much again per call).
    return 140 * len(columns) + 6 * columns.last


@final
class ColumnShelf:
    """Each session's `SessionColumns`, from a lenient repository (a refused event is part of
    what the page shows, never a reason not to show the rest)."""

    def __init__(
        self,
        repository: DefaultToolRepository,
        *,
        budget: int = BUDGET_BYTES,
        times: Callable[[SessionId], bool] = lambda session_id: True,
    ) -> None:
        self._repository = repository
        self._budget = budget
        self._times = times  # whether a session's times are real (else laid out by step)
        self._kept: OrderedDict[str, SessionColumns] = OrderedDict()
        self._lock = threading.Lock()
        self._session_locks: dict[str, threading.Lock] = {}

    def cached(self, session_id: SessionId) -> SessionColumns | None:
        """The columns kept for the session, however far they reach (no store read)."""
        with self._lock:
            return self._kept.get(session_id)

    def columns(self, session_id: SessionId, through: int | None = None) -> SessionColumns:
        """Columns that reach ``through`` (the session's last event if not given): the kept
        ones if they do, else read or caught up to the session's last event now."""
        kept = self.cached(session_id)
        if kept is not None and through is not None and kept.last >= through:
            self._touch(session_id)
            return kept
        with self._lock:
            lock = self._session_locks.setdefault(session_id, threading.Lock())
        with lock:  # one reader per session; the others wait for its columns
            kept = self.cached(session_id)
            last = self._repository.last_sequence(session_id)
            if kept is not None and kept.last >= (last if through is None else through):
                self._touch(session_id)
                return kept
            fresh = self._read(session_id, last, kept)
            self._keep(session_id, fresh)
            give_back()  # reading made and dropped an object per entry
            return fresh

    def _read(
        self, session_id: SessionId, last: int, kept: SessionColumns | None
    ) -> SessionColumns:
        repository = self._repository
        if not repository.indexed(session_id):
            # One pass over the events gives every entry (a log keeps no index to walk).
            answer = repository.entries(session_id)
            if not isinstance(answer, Success):
                # A lenient repository fails only where the store cannot be read: said so.
                raise unanswered(answer.failure())
            whole = answer.unwrap()
            refused = [_refusal(stored, error) for stored, error in whole.refused]
            entries = whole.entries
            return columns_of(
                session_id, whole.last_sequence, len(entries), [entries], refused,
                times=self._times(session_id),
            )  # fmt: skip
        refused = [_refusal(s, e) for s, e in repository.refused(session_id, at=last)]
        if kept is not None:
            changed = repository.changed_entries(session_id, kept.last, last)
            return kept.caught_up(last, changed, refused)
        summary = repository.summary(session_id, at=last)
        if not isinstance(summary, Success):
            raise unanswered(summary.failure())
        count = summary.unwrap().invocations
        pieces = self._pieces(session_id, last)
        return columns_of(session_id, last, count, pieces, refused, times=self._times(session_id))

    def _pieces(self, session_id: SessionId, last: int) -> Iterator[list[InvocationEntry]]:
        through = last
        while through > 0:
            piece = self._repository.entries_before(session_id, through, PIECE)
            if not piece:
                return
            yield piece
            if len(piece) < PIECE:
                return
            through = piece[0].requested_seq - 1

    def _touch(self, session_id: str) -> None:
        with self._lock:
            if session_id in self._kept:
                self._kept.move_to_end(session_id)

    def _keep(self, session_id: str, columns: SessionColumns) -> None:
        with self._lock:
            self._kept[session_id] = columns
            self._kept.move_to_end(session_id)
            while len(self._kept) > 1 and sum(map(_size, self._kept.values())) > self._budget:
                self._kept.popitem(last=False)

    def forget(self, session_id: SessionId) -> None:
        """Drop the session's columns (a store changed outside the library: read them again)."""
        with self._lock:
            self._kept.pop(session_id, None)


def _refusal(stored: StoredEvent, error: TransitionError) -> Refusal:
    invocation = getattr(stored.event, "invocation_id", None)
    return Refusal(stored.sequence, invocation, error.kind.value, str(error))


def prepare(columns: SessionColumns) -> None:
    """Build every structure the page's questions use, before they are asked (the server
    warms a small store's sessions so)."""
    tool_stats_at(columns, columns.last)
    counts_at(columns, columns.last)
    open_at(columns, columns.last)
    bounds(columns)
    columns.derived("endings", endings)
