"""The repository of tool states: each session's state and its past, and the store-wide id check.

Questions about the past (`DefaultToolRepository.at`, ``history``,
``diff``, ``summary``, ``latest``, ``refused``) are answered from the store's
time-travel index where it keeps one it can trust (SQLite, PostgreSQL), and by
folding the session otherwise (JSONL, memory); both give what a full fold's
``Timeline`` gives (see `questions`).
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from typing import TypeVar, final

from returns.result import Failure, Result, Success

from ...core.lifecycle.events import ToolInvocationRequestedEvent
from ...core.lifecycle.record import ToolInvocationRecord
from ...core.lifecycle.state import ToolState
from ...core.replay.errors import ReplayError
from ...core.replay.projection import ToolProjector
from ...core.replay.retention import Retention
from ...core.replay.stored_index import InvocationEntry
from ...core.replay.summary import DiffSummary, SessionSummary
from ...core.replay.timeline import RecordChange, Timeline
from ...core.tools.errors import CorrexError, error_value
from ...core.tools.ids import InvocationId, SessionId
from ...core.tools.short_ids import UnresolvedId, resolve_name, starting_in
from ..stores.port import IndexedStore, StoreReadError
from .by_folding import ByFolding
from .questions import FromIndex, History, Questions, Refusals, SessionEntries
from .replayer import EventReplayer, answered_or_unreadable, unreadable
from .view import SessionView

T = TypeVar("T")


@final
@error_value
class DuplicateInvocation(CorrexError):
    """An invocation id requested in two sessions (or twice in one)."""

    invocation_id: InvocationId
    first_session: SessionId
    second_session: SessionId
    message: str


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
            try:
                cached = self._from_index(session_id)
            except StoreReadError as error:
                return Failure(unreadable(error))
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

    def forget(self, session_id: SessionId) -> None:
        """Drop the state kept of the session: its events were replaced (a transcript
        rewritten in place, imported again whole), so it is built again when asked for."""
        with self._lock:
            self._cache.pop(session_id, None)

    def _from_index(self, session_id: SessionId) -> tuple[ToolState, int] | None:
        """The current state from the store's index, if it has one to trust (and no refusal
        stops a strict fold); the fold then only catches up on what came after."""
        with self.view(session_id) as view:
            if not view.indexed:
                return None
            last = view.last_sequence
            state = view.at(last)
            if view.stale:
                return None
        return (state.unwrap(), last) if isinstance(state, Success) else None

    @contextmanager
    def view(self, session_id: SessionId) -> Iterator[SessionView]:
        """The session seen in one snapshot of the store (see `SessionView`): ask every
        question of one command there, so that the answers agree with each other."""
        store = self.replayer.store
        view: SessionView | None = None
        try:
            with self._questions(session_id) as questions:
                view = SessionView(session_id, questions, lambda: self._folding(session_id))
                yield view
        finally:
            if view is not None and view.stale and isinstance(store, IndexedStore):
                # Only now: the snapshot is over, and marking the index stale writes.
                store.distrust_index(session_id)

    def resolve_session(self, name: str) -> Result[SessionId, UnresolvedId]:
        """The session ``name`` names: its id, or a prefix of exactly one session's id (an id
        given whole wins); otherwise an `UnresolvedId` naming the first few it could mean."""
        sessions = self.replayer.store.sessions()
        return resolve_name(name, starting_in(sessions)).map(SessionId)

    def resolve_invocation(
        self, session_id: SessionId, name: str
    ) -> Result[InvocationId, UnresolvedId]:
        """The invocation of the session ``name`` names: its id, its id without the session's
        own prefix (``call-00005`` in ``run-1``), or a prefix of exactly one of those, looked
        up in the store's index where it keeps one (see `SessionView.resolve`)."""
        with self.view(session_id) as view:
            return view.resolve(name)

    def last_sequence(self, session_id: SessionId) -> int:
        """The session's last sequence (0 for a session with no events)."""
        with self.view(session_id) as view:
            return view.last_sequence

    def at(self, session_id: SessionId, sequence: int) -> Result[ToolState, ReplayError]:
        """The session's state right after event ``sequence`` (``0``: before any event)."""
        return self._asked(session_id, lambda view: view.at(sequence))

    def history(
        self, session_id: SessionId, invocation_id: InvocationId
    ) -> Result[History, ReplayError]:
        """Each version of one invocation's record with the sequence that made it (``()``: the
        invocation was never requested in this session)."""
        return self._asked(session_id, lambda view: view.history(invocation_id))

    def diff(
        self, session_id: SessionId, a: int, b: int, limit: int | None = None, offset: int = 0
    ) -> Result[tuple[RecordChange, ...], ReplayError]:
        """The records added or changed from right after ``a`` to right after ``b``, in
        request order (only ``limit`` of them from the ``offset``-th when given)."""
        if a > b:
            raise ValueError(f"diff goes forward: sequence a={a} is after b={b}")
        return self._asked(session_id, lambda view: view.diff(a, b, limit, offset))

    def diff_summary(
        self, session_id: SessionId, a: int, b: int
    ) -> Result[DiffSummary, ReplayError]:
        """The records added or changed from right after ``a`` to right after ``b``, counted
        by status and by tool (from the store's index where it keeps one, at any range)."""
        if a > b:
            raise ValueError(f"diff goes forward: sequence a={a} is after b={b}")
        return self._asked(session_id, lambda view: view.diff_summary(a, b))

    def summary(
        self, session_id: SessionId, at: int | None = None
    ) -> Result[SessionSummary, ReplayError]:
        """Counts by status, the invocations in flight and the refused events, right after
        ``at`` (the session's last event unless given)."""
        return self._asked(session_id, lambda view: view.summary(at))

    def latest(
        self, session_id: SessionId, count: int, at: int | None = None
    ) -> Result[tuple[ToolInvocationRecord, ...], ReplayError]:
        """The last ``count`` invocations requested by ``at`` (the last event unless given),
        each as it stood then."""
        if count < 0:
            raise ValueError(f"count must be >= 0, got {count}")
        return self._asked(session_id, lambda view: view.latest(count, at))

    def refused(
        self, session_id: SessionId, at: int | None = None, limit: int | None = None
    ) -> Refusals:
        """The events the lifecycle refused by ``at`` (at most ``limit``), each with why."""
        with self.view(session_id) as view:
            return view.refused(at, limit)

    def entries(self, session_id: SessionId) -> Result[SessionEntries, ReplayError]:
        """Every invocation's entry (its request, start and end: sequences and fields) and
        every refused event of the whole session, from the store's index when it keeps one."""
        return self._asked(session_id, lambda view: view.entries())

    def entries_before(
        self, session_id: SessionId, through: int, count: int
    ) -> list[InvocationEntry]:
        """The entries of the last ``count`` invocations requested by ``through``, in request
        order, each as it is now: a large session read a piece at a time, walking back."""
        with self.view(session_id) as view:
            return view.entries_before(through, count)

    def entries_by_id(
        self, session_id: SessionId, ids: Sequence[InvocationId]
    ) -> list[InvocationEntry | None]:
        """The entry of each of ``ids`` as it is now (``None``: not requested here)."""
        with self.view(session_id) as view:
            return view.entries_by_id(ids)

    def changed_entries(self, session_id: SessionId, a: int, b: int) -> list[InvocationEntry]:
        """The entries with an applied event in ``(a, b]``, in request order, each as it is
        now (what a view of the session built at ``a`` needs to catch up to ``b``)."""
        with self.view(session_id) as view:
            return view.changed_entries(a, b)

    def indexed(self, session_id: SessionId) -> bool:
        """Whether the store answers about the session from a time-travel index it trusts
        (``False`` for a store that keeps none, or whose index is stale or too old)."""
        with self.view(session_id) as view:
            return view.indexed

    def _asked(
        self, session_id: SessionId, question: Callable[[SessionView], Result[T, ReplayError]]
    ) -> Result[T, ReplayError]:
        """``question`` asked of one view of the session; a store that cannot be read (a
        database gone away, a file damaged under the index) is a `ReplayError` too."""

        def asked() -> Result[T, ReplayError]:
            with self.view(session_id) as view:
                return question(view)

        return answered_or_unreadable(asked)

    def _folding(self, session_id: SessionId) -> Questions:
        return ByFolding(session_id, self.replayer, strict=self._strict)

    @contextmanager
    def _questions(self, session_id: SessionId) -> Iterator[Questions]:
        """The way to answer: the store's index if it keeps one to trust, else folding."""
        store = self.replayer.store
        if isinstance(store, IndexedStore):
            with store.session_index(session_id) as index:
                if index is not None:
                    yield FromIndex(session_id, index, strict=self._strict)
                    return
        yield self._folding(session_id)

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
