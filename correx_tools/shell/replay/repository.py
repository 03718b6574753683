"""The repository of tool states: each session's state and its past, and the store-wide id check.

Questions about the past (`DefaultToolRepository.at`, ``history``,
``diff``, ``summary``, ``latest``, ``refused``) are answered from the store's
time-travel index where it keeps one it can trust (SQLite, PostgreSQL), and by
folding the session otherwise (JSONL, memory); both give what a full fold's
``Timeline`` gives (see `questions`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import TypeVar, final

from returns.result import Failure, Result, Success

from ...core.lifecycle.events import ToolInvocationRequestedEvent
from ...core.lifecycle.record import ToolInvocationRecord
from ...core.lifecycle.state import ToolState
from ...core.replay.errors import ReplayError
from ...core.replay.projection import ToolProjector
from ...core.replay.retention import Retention
from ...core.replay.summary import SessionSummary
from ...core.replay.timeline import RecordChange, Timeline
from ...core.tools.errors import CorrexError, error_value
from ...core.tools.ids import InvocationId, SessionId
from ..stores.port import IndexedStore, StaleIndex
from .questions import ByFolding, FromIndex, History, Questions, Refusals, SessionEntries
from .replayer import EventReplayer

T = TypeVar("T")


@final
@error_value
@dataclass(frozen=True, slots=True, kw_only=True)
class DuplicateInvocation(CorrexError):
    """An invocation id requested in two sessions (or twice in one)."""

    invocation_id: InvocationId
    first_session: SessionId
    second_session: SessionId
    message: str

    def __str__(self) -> str:
        return self.message


@final
class DefaultToolRepository:
    """``ToolState`` per session, and its past, through an `EventReplayer`'s store.

    ``get`` keeps the last persistent state it built for each session and, on
    the next call, folds only the events appended since (the cache holds
    immutable values, so a state handed out never changes afterwards); a first
    ``get`` reads a store's index instead of folding when it has one. In
    strict mode (the default) an answer about sequence ``k`` fails, as the
    strict fold of the first ``k`` events does, when the lifecycle refused one
    of them; lenient mode skips them. A sequence outside ``0..last`` is an
    ``IndexError`` naming the range.
    """

    def __init__(self, replayer: EventReplayer, *, strict: bool = True) -> None:
        self.replayer = replayer
        self._strict = strict
        self._projector = ToolProjector()
        self._lock = threading.Lock()
        self._cache: dict[str, tuple[ToolState, int]] = {}

    def get(self, session_id: SessionId) -> Result[ToolState, ReplayError]:
        """The session's current state, catching up from the last state built."""
        with self._lock:
            cached = self._cache.get(session_id)
        if cached is None:
            cached = self._from_index(session_id)
        state, after = cached if cached is not None else (ToolState.empty(), 0)
        result = self.replayer.replay(
            session_id, self._projector, strict=self._strict, initial=state, after=after
        )
        if not isinstance(result, Success):
            return Failure(result.failure())
        replay = result.unwrap()
        with self._lock:
            known = self._cache.get(session_id)
            if known is None or known[1] < replay.last_sequence:
                self._cache[session_id] = (replay.state, replay.last_sequence)
        return Success(replay.state)

    def _from_index(self, session_id: SessionId) -> tuple[ToolState, int] | None:
        """The current state from the store's index, if it has one to trust (and no refusal
        stops a strict fold); the fold then only catches up on what came after."""
        with self._questions(session_id) as questions:
            if not isinstance(questions, FromIndex):
                return None
            try:
                last = questions.last_sequence()
                state = questions.at(last)
            except StaleIndex:
                stale = True
            else:
                stale = False
        if stale:
            self._distrust(session_id)
            return None
        return (state.unwrap(), last) if isinstance(state, Success) else None

    def last_sequence(self, session_id: SessionId) -> int:
        """The session's last sequence (0 for a session with no events)."""
        with self._questions(session_id) as questions:
            return questions.last_sequence()

    def at(self, session_id: SessionId, sequence: int) -> Result[ToolState, ReplayError]:
        """The session's state right after event ``sequence`` (``0``: before any event)."""
        return self._ask(session_id, sequence, lambda questions: questions.at(sequence))

    def history(
        self, session_id: SessionId, invocation_id: InvocationId
    ) -> Result[History, ReplayError]:
        """Each version of one invocation's record with the sequence that made it (``()``: the
        invocation was never requested in this session)."""
        return self._ask(session_id, None, lambda questions: questions.history(invocation_id))

    def diff(
        self, session_id: SessionId, a: int, b: int
    ) -> Result[tuple[RecordChange, ...], ReplayError]:
        """The records added or changed from right after ``a`` to right after ``b``."""
        if a > b:
            raise ValueError(f"diff goes forward: sequence a={a} is after b={b}")
        return self._ask(session_id, (a, b), lambda questions: questions.diff(a, b))

    def summary(
        self, session_id: SessionId, at: int | None = None
    ) -> Result[SessionSummary, ReplayError]:
        """Counts by status, the invocations in flight and the refused events, right after
        ``at`` (the session's last event unless given)."""
        return self._ask_at(session_id, at, lambda questions, k: questions.summary(k))

    def latest(
        self, session_id: SessionId, count: int, at: int | None = None
    ) -> Result[tuple[ToolInvocationRecord, ...], ReplayError]:
        """The last ``count`` invocations requested by ``at`` (the last event unless given),
        each as it stood then."""
        if count < 0:
            raise ValueError(f"count must be >= 0, got {count}")
        return self._ask_at(session_id, at, lambda questions, k: questions.latest(count, k))

    def refused(
        self, session_id: SessionId, at: int | None = None, limit: int | None = None
    ) -> Refusals:
        """The events the lifecycle refused by ``at`` (at most ``limit``), each with why."""
        return self._ask_at(session_id, at, lambda questions, k: questions.refused(k, limit))

    def entries(self, session_id: SessionId) -> Result[SessionEntries, ReplayError]:
        """Every invocation's entry (its request, start and end: sequences and fields) and
        every refused event of the whole session, from the store's index when it keeps one."""
        return self._ask(session_id, None, lambda questions: questions.entries())

    def _ask_at(
        self, session_id: SessionId, at: int | None, question: Callable[[Questions, int], T]
    ) -> T:
        if at is None:
            with self._questions(session_id) as questions:
                try:
                    return question(questions, questions.last_sequence())
                except StaleIndex:
                    pass
            self._distrust(session_id)
            folded = ByFolding(session_id, self.replayer, strict=self._strict)
            return question(folded, folded.last_sequence())
        return self._ask(session_id, at, lambda questions: question(questions, at))

    def _ask(
        self,
        session_id: SessionId,
        sequences: int | tuple[int, int] | None,
        question: Callable[[Questions], T],
    ) -> T:
        with self._questions(session_id) as questions:
            _check_range(sequences, questions.last_sequence())
            try:
                return question(questions)
            except StaleIndex:
                pass
        self._distrust(session_id)
        return question(ByFolding(session_id, self.replayer, strict=self._strict))

    def _distrust(self, session_id: SessionId) -> None:
        """An index found not to match its events: answer by folding, and have it rebuilt."""
        store = self.replayer.store
        if isinstance(store, IndexedStore):
            store.distrust_index(session_id)

    @contextmanager
    def _questions(self, session_id: SessionId) -> Iterator[Questions]:
        """The way to answer: the store's index if it keeps one to trust, else folding."""
        store = self.replayer.store
        if isinstance(store, IndexedStore):
            with store.session_index(session_id) as index:
                if index is not None:
                    yield FromIndex(session_id, index, strict=self._strict)
                    return
        yield ByFolding(session_id, self.replayer, strict=self._strict)

    def timeline(
        self, session_id: SessionId, retention: Retention | None = None
    ) -> Result[Timeline[ToolState], ReplayError]:
        """A timeline of the whole session (``Retention.all()`` unless told otherwise)."""
        result = self.replayer.replay(
            session_id,
            self._projector,
            strict=self._strict,
            retention=Retention.all() if retention is None else retention,
        )
        if not isinstance(result, Success):
            return Failure(result.failure())
        timeline = result.unwrap().timeline
        assert timeline is not None  # a retention policy was given
        return Success(timeline)

    def check_unique_invocations(self) -> Result[None, DuplicateInvocation]:
        """Verify that no invocation id is requested twice anywhere in the store."""
        store = self.replayer.store
        first_seen: dict[str, str] = {}
        for session_id in store.sessions():
            for stored in store.read(session_id):
                event = stored.event
                if not isinstance(event, ToolInvocationRequestedEvent):
                    continue
                other = first_seen.get(event.invocation_id)
                if other is not None:
                    return Failure(
                        DuplicateInvocation(
                            invocation_id=event.invocation_id,
                            first_session=SessionId(other),
                            second_session=session_id,
                            message=f"invocation {event.invocation_id!r} is requested in session "
                            f"{other!r} and again in {session_id!r} (sequence {stored.sequence})",
                        )
                    )
                first_seen[event.invocation_id] = session_id
        return Success(None)


def _check_range(sequences: int | tuple[int, int] | None, last: int) -> None:
    for sequence in (sequences,) if isinstance(sequences, int) else sequences or ():
        if type(sequence) is not int:
            raise TypeError(f"a sequence is an int, not {type(sequence).__name__}")
        if not 0 <= sequence <= last:
            raise IndexError(f"sequence {sequence} is outside the session's range 0..{last}")
