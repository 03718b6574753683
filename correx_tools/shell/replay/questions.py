"""Questions about a session's past, answered two ways: from a store's index, or by folding.

`FromIndex`, here, answers from a `SessionIndex`
(SQLite, PostgreSQL), reading only the rows a question needs; `ByFolding`
(`by_folding`) answers from a fold of the session's events (JSONL, memory, a
store whose index cannot be trusted). Both give exactly what a full fold's ``Timeline`` gives;
``tests/test_questions.py`` holds the first to the second on random sessions.

In strict mode a question about sequence ``k`` fails, as the strict fold of the
first ``k`` events does, when the lifecycle refused one of them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import NamedTuple, Protocol, TypeVar, final

from pyrsistent import pmap
from returns.result import Failure, Result, Success

from ...core.lifecycle.events import StoredEvent
from ...core.lifecycle.record import ToolInvocationRecord
from ...core.lifecycle.state import ToolState
from ...core.lifecycle.transitions import TransitionError
from ...core.replay.errors import ReplayError
from ...core.replay.stored_index import (
    STATUS_OF_CODE,
    InvocationEntry,
    history_of,
    record_at,
    refusal_of,
)
from ...core.replay.summary import DiffSummary, SessionSummary
from ...core.replay.timeline import RecordChange
from ...core.tools.ids import InvocationId, SessionId
from ..stores.port import SessionIndex, StaleIndex
from .diffs import changes_between, count_changes
from .pages import Entries, Outlines, index_entries, index_outlines

T = TypeVar("T")
History = tuple[tuple[int, ToolInvocationRecord], ...]
Changes = tuple[RecordChange, ...]
Refusals = tuple[tuple[StoredEvent, TransitionError], ...]


class SessionEntries(NamedTuple):
    """A whole session as its index sees it: each invocation's entry (the sequences and
    fields of its request, start and end), in request order, and the refused events."""

    last_sequence: int
    entries: tuple[InvocationEntry, ...]
    refused: Refusals


class Questions(Protocol):
    """What a debugger asks of one session (each answer as a full fold would give it)."""

    def last_sequence(self) -> int:
        """The session's last sequence."""
        ...

    def at(self, sequence: int) -> Result[ToolState, ReplayError]:
        """The state right after ``sequence``."""
        ...

    def history(self, invocation_id: InvocationId) -> Result[History, ReplayError]:
        """Each version of one invocation's record, with the sequence that made it."""
        ...

    def diff(
        self, a: int, b: int, limit: int | None = None, offset: int = 0
    ) -> Result[Changes, ReplayError]:
        """The records added or changed from ``a`` to ``b`` (``limit`` of them from the
        ``offset``-th)."""
        ...

    def diff_summary(self, a: int, b: int) -> Result[DiffSummary, ReplayError]:
        """The changes from ``a`` to ``b``, counted."""
        ...

    def summary(self, sequence: int) -> Result[SessionSummary, ReplayError]:
        """Counts by status, invocations in flight and refused events, right after ``sequence``."""
        ...

    def latest(
        self, count: int, sequence: int
    ) -> Result[tuple[ToolInvocationRecord, ...], ReplayError]:
        """The last ``count`` invocations requested by ``sequence``, as they stood then."""
        ...

    def refused(self, sequence: int, limit: int | None) -> Refusals:
        """The events the lifecycle refused by ``sequence`` (at most ``limit``), with why."""
        ...

    def entries(self) -> Result[SessionEntries, ReplayError]:
        """Every invocation's entry and every refused event of the whole session."""
        ...

    def entries_before(self, through: int, count: int) -> list[InvocationEntry]:
        """The entries of the last ``count`` invocations requested by ``through``, in order."""
        ...

    def entries_through(self, sequence: int, after: int) -> Entries:
        """Entries requested in ``(after, sequence]``, as they are now; read as consumed."""
        ...

    def outlines_through(self, sequence: int, after: int) -> Outlines:
        """`entries_through`, as outlines: the invocations as they are now."""
        ...

    def entries_by_id(self, ids: Sequence[str]) -> list[InvocationEntry | None]:
        """The entry of each of ``ids`` (``None``: not requested in this session)."""
        ...

    def changed_entries(self, a: int, b: int) -> list[InvocationEntry]:
        """The entries with an applied event in ``(a, b]``, in request order, each as it is
        now (events after ``b`` included)."""
        ...

    def ids_starting(self, prefixes: Sequence[str], count: int) -> list[list[str]]:
        """For each prefix, the first ``count`` invocation ids beginning with it, in order."""
        ...

    def ids_present(self, ids: Sequence[str]) -> set[str]:
        """Those of ``ids`` that are invocation ids of the session."""
        ...


def refusal_error(stored: StoredEvent, error: TransitionError) -> ReplayError:
    # What the strict fold returns for its first refused event.
    return ReplayError(sequence=stored.sequence, cause=error, message=str(error))


@final
class FromIndex:
    """Answers from a store's index, read in one snapshot; each may raise `StaleIndex`.

    In strict mode the session's first refused event is looked up once: every
    answer about a sequence at or after it fails as the strict fold would.
    """

    __slots__ = ("_first_refusal", "_index", "_looked_up", "_session", "_strict")

    def __init__(self, session_id: SessionId, index: SessionIndex, *, strict: bool) -> None:
        self._session = session_id
        self._index = index
        self._strict = strict
        self._looked_up = False
        self._first_refusal: ReplayError | None = None

    def last_sequence(self) -> int:
        """The session's last sequence."""
        return self._index.last_sequence

    def _check(self, sequence: int) -> ReplayError | None:
        if not self._strict:
            return None
        if not self._looked_up:
            first = self._index.refused(through=self._index.last_sequence, limit=1)
            if first:
                stored, entry = first[0]
                self._first_refusal = refusal_error(stored, refusal_of(stored, entry))
            self._looked_up = True
        refusal = self._first_refusal
        return refusal if refusal is not None and refusal.sequence <= sequence else None

    def at(self, sequence: int) -> Result[ToolState, ReplayError]:
        """The state right after ``sequence``: each requested invocation's record then."""
        problem = self._check(sequence)
        if problem is not None:
            return Failure(problem)
        entries = self._counted(self._index.entries(through=sequence), sequence)
        records = [record_at(entry, sequence) for entry in entries]
        return Success(ToolState.of_records(r for r in records if r is not None))

    def _counted(
        self, entries: list[InvocationEntry], sequence: int, last: int | None = None
    ) -> list[InvocationEntry]:
        """``entries`` (requested by ``sequence``; the last ``last`` of them), once their
        number is the one the events give: a missing row is a `StaleIndex`.

        All of them are counted against the index's counters; the last few against
        the requests applied since the first of them (a short span of events).
        """
        if last is None:
            requested = sum(self._index.counts_at(sequence)[:5])
        elif entries:
            requested = self._index.requests_between(entries[0].requested_seq - 1, sequence)
        else:
            requested = min(last, sum(self._index.counts_at(sequence)[:5]))
        if len(entries) != requested:
            raise StaleIndex(
                f"{requested} invocations were requested there, "
                f"but the index has rows for {len(entries)}"
            )
        return entries

    def history(self, invocation_id: InvocationId) -> Result[History, ReplayError]:
        """The versions of one invocation's record: at its request, start and end."""
        problem = self._check(self._index.last_sequence)
        if problem is not None:
            return Failure(problem)
        entry = self._index.entry(invocation_id)
        return Success(() if entry is None else history_of(entry))

    def diff(
        self, a: int, b: int, limit: int | None = None, offset: int = 0
    ) -> Result[Changes, ReplayError]:
        """The records changed in ``(a, b]`` (``limit`` from the ``offset``-th), read as
        `diffs` says."""
        return self._unless_refused(b, lambda: changes_between(self._index, a, b, limit, offset))

    def diff_summary(self, a: int, b: int) -> Result[DiffSummary, ReplayError]:
        """The records changed in ``(a, b]``, counted as `diffs` says."""
        return self._unless_refused(b, lambda: count_changes(self._index, a, b))

    def _unless_refused(self, sequence: int, answer: Callable[[], T]) -> Result[T, ReplayError]:
        problem = self._check(sequence)
        return Success(answer()) if problem is None else Failure(problem)

    def summary(self, sequence: int) -> Result[SessionSummary, ReplayError]:
        """From the counters at the checkpoint before ``sequence`` and the open entries."""
        problem = self._check(sequence)
        if problem is not None:
            return Failure(problem)
        counts = self._index.counts_at(sequence)
        by_status = {STATUS_OF_CODE[code]: counts[code - 1] for code in range(1, 6)}
        return Success(
            SessionSummary(
                session_id=self._session,
                sequence=sequence,
                invocations=sum(counts[:5]),
                counts=pmap(by_status),
                refused=counts[5],
                in_flight=tuple(
                    e.invocation_id
                    for e in self._index.open_entries(sequence, counts[0] + counts[1])
                ),
                exited_nonzero=self._index.exited_nonzero(sequence, counts[2]),
            )
        )

    def latest(
        self, count: int, sequence: int
    ) -> Result[tuple[ToolInvocationRecord, ...], ReplayError]:
        """The last ``count`` entries requested by ``sequence``, as records then."""
        problem = self._check(sequence)
        if problem is not None:
            return Failure(problem)
        entries = self._counted(self._index.entries(through=sequence, last=count), sequence, count)
        return Success(tuple(r for e in entries if (r := record_at(e, sequence)) is not None))

    def refused(self, sequence: int, limit: int | None) -> Refusals:
        """The refused events, each with the refusal the fold gives it."""
        return tuple(
            (stored, refusal_of(stored, entry))
            for stored, entry in self._index.refused(through=sequence, limit=limit)
        )

    def entries(self) -> Result[SessionEntries, ReplayError]:
        """The index's entries through the last sequence, and its refused events."""
        last = self._index.last_sequence
        problem = self._check(last)
        if problem is not None:
            return Failure(problem)
        entries = tuple(self._counted(self._index.entries(through=last), last))
        return Success(SessionEntries(last, entries, self.refused(last, None)))

    def entries_before(self, through: int, count: int) -> list[InvocationEntry]:
        """Read walking back from ``through``: only the rows asked for."""
        return self._index.entries(through=through, last=count) if count > 0 else []

    def entries_through(self, sequence: int, after: int) -> Entries:
        """From the index, a page at a time (`index_entries`)."""
        problem = self._check(sequence)
        if problem is not None:
            return Failure(problem)
        return Success(index_entries(self._index, sequence, after))

    def outlines_through(self, sequence: int, after: int) -> Outlines:
        """From the index, a page at a time, payloads unread (`index_outlines`)."""
        problem = self._check(sequence)
        if problem is not None:
            return Failure(problem)
        return Success(index_outlines(self._index, sequence, after))

    def entries_by_id(self, ids: Sequence[str]) -> list[InvocationEntry | None]:
        """Each entry by its primary key."""
        return self._index.entries_of(ids)

    def changed_entries(self, a: int, b: int) -> list[InvocationEntry]:
        """The index's entries with an applied event in ``(a, b]``."""
        return self._index.changed(a, b)

    def ids_starting(self, prefixes: Sequence[str], count: int) -> list[list[str]]:
        """A range of the index's ids for each prefix."""
        return self._index.ids_starting(prefixes, count)

    def ids_present(self, ids: Sequence[str]) -> set[str]:
        """By the index's key."""
        return self._index.ids_present(ids)
