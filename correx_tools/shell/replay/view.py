"""One session seen in one snapshot of its store: every answer from the same state.

A command asks several questions about one session (its last sequence, the
counts at a point, the records there, the refused events); a `SessionView`
answers them all from one read of the store's index — opened once, the
strict fold's refusal looked up once — or, where the store keeps no index to
trust, by folding. An index found not to match its events is dropped for the
rest of the view, which then folds; the caller is told (`stale`) so the index
is distrusted once the snapshot has ended.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from typing import TypeVar, final

from returns.result import Result, Success

from ...core.lifecycle.record import ToolInvocationRecord
from ...core.lifecycle.state import ToolState
from ...core.replay.errors import ReplayError
from ...core.replay.stored_index import InvocationEntry
from ...core.replay.summary import DiffSummary, SessionSummary
from ...core.replay.timeline import RecordChange
from ...core.tools.ids import InvocationId, SessionId
from ...core.tools.short_ids import UnresolvedId, resolve_name
from ..stores.port import StaleIndex
from .pages import Entries, Outlines, R, outlines_at
from .questions import FromIndex, History, Questions, Refusals, SessionEntries
from .replayer import answered_or_unreadable

T = TypeVar("T")
Ask = Callable[[Questions, int], Result[Iterator[R], ReplayError]]
"""A stream's question: what is said of the invocations requested after a sequence (their
entries, their outlines), of these questions."""


class StreamFailed(Exception):
    """A stream whose index was found stale part way, and whose fold then failed (strict
    mode): ``error`` is why, as the answer would have said had it come first."""

    def __init__(self, error: ReplayError) -> None:
        super().__init__(str(error))
        self.error = error


@final
class SessionView:
    """The questions a debugger asks of one session, answered from one snapshot.

    Answers are what a full fold's ``Timeline`` gives. A sequence outside
    ``0..last_sequence`` is an ``IndexError`` naming the range.
    """

    __slots__ = ("_fallback", "_last", "_questions", "session_id", "stale")

    def __init__(
        self, session_id: SessionId, questions: Questions, fallback: Callable[[], Questions]
    ) -> None:
        self.session_id = session_id
        self._questions = questions
        self._fallback = fallback
        self._last: int | None = None
        self.stale = False
        """Whether the store's index was found not to match its events (answers then fold)."""

    @property
    def indexed(self) -> bool:
        """Whether the answers come from the store's index (else from folding)."""
        return isinstance(self._questions, FromIndex)

    @property
    def last_sequence(self) -> int:
        """The session's last sequence (0 for a session with no events)."""
        if self._last is None:
            self._last = self._ask(lambda questions: questions.last_sequence(), None)
        return self._last

    def at(self, sequence: int) -> Result[ToolState, ReplayError]:
        """The session's state right after event ``sequence`` (``0``: before any event)."""
        return answered_or_unreadable(
            lambda: self._ask(lambda questions: questions.at(sequence), sequence)
        )

    def history(self, invocation_id: InvocationId) -> Result[History, ReplayError]:
        """Each version of one invocation's record with the sequence that made it (``()``: the
        invocation was never requested in this session)."""
        return answered_or_unreadable(lambda: self._ask(lambda q: q.history(invocation_id), None))

    def diff(
        self, a: int, b: int, limit: int | None = None, offset: int = 0
    ) -> Result[tuple[RecordChange, ...], ReplayError]:
        """The records added or changed from right after ``a`` to right after ``b``, in
        request order; only ``limit`` of them from the ``offset``-th when given
        (`diff_summary` counts them all)."""
        if a > b:
            raise ValueError(f"diff goes forward: sequence a={a} is after b={b}")
        if limit is not None and limit < 0:
            raise ValueError(f"limit must be >= 0, got {limit}")
        if offset < 0:
            raise ValueError(f"offset must be >= 0, got {offset}")
        return answered_or_unreadable(
            lambda: self._ask(lambda q: q.diff(a, b, limit, offset), (a, b))
        )

    def diff_summary(self, a: int, b: int) -> Result[DiffSummary, ReplayError]:
        """The records added or changed from right after ``a`` to right after ``b``, counted
        (by status at ``b`` and by tool) without reading them one by one where the store
        keeps an index."""
        if a > b:
            raise ValueError(f"diff goes forward: sequence a={a} is after b={b}")
        return answered_or_unreadable(lambda: self._ask(lambda q: q.diff_summary(a, b), (a, b)))

    def summary(self, at: int | None = None) -> Result[SessionSummary, ReplayError]:
        """Counts by status, the invocations in flight and the refused events, right after
        ``at`` (the session's last event unless given)."""
        return answered_or_unreadable(lambda: self._ask_at(lambda q, k: q.summary(k), at))

    def latest(
        self, count: int, at: int | None = None
    ) -> Result[tuple[ToolInvocationRecord, ...], ReplayError]:
        """The last ``count`` invocations requested by ``at`` (the last event unless given),
        each as it stood then."""
        if count < 0:
            raise ValueError(f"count must be >= 0, got {count}")
        return answered_or_unreadable(lambda: self._ask_at(lambda q, k: q.latest(count, k), at))

    def refused(self, at: int | None = None, limit: int | None = None) -> Refusals:
        """The events the lifecycle refused by ``at`` (at most ``limit``), each with why."""
        return self._ask_at(lambda questions, k: questions.refused(k, limit), at)

    def entries(self) -> Result[SessionEntries, ReplayError]:
        """Every invocation's entry and every refused event of the whole session."""
        return answered_or_unreadable(
            lambda: self._ask(lambda questions: questions.entries(), None)
        )

    def entries_before(self, through: int, count: int) -> list[InvocationEntry]:
        """The entries of the last ``count`` invocations requested by ``through``, in request
        order, each as it is now."""
        return self._ask(lambda questions: questions.entries_before(through, count), through)

    def entries_by_id(self, ids: Sequence[InvocationId]) -> list[InvocationEntry | None]:
        """The entry of each of ``ids`` as it is now (``None``: not requested here)."""
        return self._ask(lambda questions: questions.entries_by_id(ids), None)

    def changed_entries(self, a: int, b: int) -> list[InvocationEntry]:
        """The entries with an applied event in ``(a, b]``, in request order, each as it is
        now."""
        if a > b:
            raise ValueError(f"changes go forward: sequence a={a} is after b={b}")
        return self._ask(lambda questions: questions.changed_entries(a, b), (a, b))

    def resolve(self, name: str) -> Result[InvocationId, UnresolvedId]:
        """The invocation of this session that ``name`` names: its id, its id without the
        session's own prefix (``call-00005``), or a prefix of exactly one of those; an id
        given whole wins (see `short_ids`)."""

        def starting(prefixes: Sequence[str], count: int) -> list[list[str]]:
            return self._ask(lambda questions: questions.ids_starting(prefixes, count), None)

        def present(ids: Sequence[str]) -> set[str]:
            return self._ask(lambda questions: questions.ids_present(ids), None)

        # An index looks whole ids up by key (a prefix, on PostgreSQL, walks the session's
        # rows); a fold reads every id either way, so it is asked once.
        found = resolve_name(
            name,
            starting,
            kind="invocation",
            session_id=self.session_id,
            present=present if self.indexed else None,
        )
        return found.map(InvocationId)

    def outlines(self, at: int | None = None) -> Outlines:
        """The outline of each invocation requested by ``at`` (the last event unless given),
        as it stood then, in request order: read a page at a time as the iterator is
        consumed, inside the view."""
        return answered_or_unreadable(lambda: self._outlines(self._point(at)))

    def _outlines(self, k: int) -> Outlines:
        found = self._stream(lambda questions, after: questions.outlines_through(k, after), k)
        return found.map(lambda outlines: outlines_at(outlines, k))

    def entries_through(self, at: int | None = None) -> Entries:
        """The entry of each invocation requested by ``at`` (the last event unless given),
        as it is now, in request order, read as `outlines` is."""
        return answered_or_unreadable(lambda: self._entries_through(self._point(at)))

    def _entries_through(self, k: int) -> Entries:
        return self._stream(lambda questions, after: questions.entries_through(k, after), k)

    def _stream(self, ask: Ask[R], k: int) -> Result[Iterator[R], ReplayError]:
        first = self._ask(lambda questions: ask(questions, 0), k)
        return first.map(lambda items: self._resumed(items, ask))

    def _resumed(self, items: Iterator[R], ask: Ask[R]) -> Iterator[R]:
        """``items``; an index found stale part way is left for a fold, which goes on after
        the last invocation given (`StreamFailed` if the fold refuses the session)."""
        after = 0
        while True:
            try:
                for item in items:
                    after = item.requested_seq
                    yield item
                return
            except StaleIndex:
                if self.stale:
                    raise
                self.stale = True
                self._questions = self._fallback()
                resumed = ask(self._questions, after)
                if not isinstance(resumed, Success):
                    raise StreamFailed(resumed.failure()) from None
                items = resumed.unwrap()

    def _ask_at(self, question: Callable[[Questions, int], T], at: int | None) -> T:
        """``question`` about the point ``at`` (the session's last event unless given)."""
        k = self._point(at)
        return self._ask(lambda questions: question(questions, k), k)

    def _point(self, at: int | None) -> int:
        return self.last_sequence if at is None else at

    def _ask(
        self, question: Callable[[Questions], T], sequences: int | tuple[int, int] | None
    ) -> T:
        if sequences is not None:
            check_range(sequences, self.last_sequence)
        try:
            return question(self._questions)
        except StaleIndex:
            self.stale = True
            self._questions = self._fallback()
            return question(self._questions)


def check_range(sequences: int | tuple[int, int], last: int) -> None:
    """An ``IndexError`` naming the range when a sequence is not one of the session's."""
    for sequence in (sequences,) if isinstance(sequences, int) else sequences:
        if type(sequence) is not int:
            raise TypeError(f"a sequence is an int, not {type(sequence).__name__}")
        if not 0 <= sequence <= last:
            raise IndexError(f"sequence {sequence} is outside the session's range 0..{last}")
