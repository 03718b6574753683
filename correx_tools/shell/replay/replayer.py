"""Replaying sessions from a store, and the repository that caches their state."""

from __future__ import annotations

import itertools
import threading
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Any, TypeVar, final

from returns.result import Failure, Result, Success

from ..core.events import StoredEvent, ToolInvocationRequestedEvent
from ..core.fold import Replay, fold_events
from ..core.ids import InvocationId, SessionId
from ..core.projection import Projection, ToolProjector
from ..core.replay_error import ReplayError
from ..core.retention import Retention
from ..core.state import ToolState
from ..core.timeline import Timeline
from .store import EventStore, StoreReadError

S = TypeVar("S")


class _Reading:
    """Iterates a store's events and keeps the read error that ended them, if any."""

    def __init__(self, events: Iterable[StoredEvent]) -> None:
        self._events = events
        self.error: StoreReadError | None = None

    def __iter__(self) -> Iterator[StoredEvent]:
        try:
            yield from self._events
        except StoreReadError as error:
            self.error = error


@final
class EventReplayer:
    """Reads one session from a store and folds it through a projection."""

    def __init__(self, store: EventStore) -> None:
        self.store = store

    def replay(
        self,
        session_id: SessionId,
        projection: Projection[S, Any],
        *,
        strict: bool = True,
        retention: Retention | None = None,
        initial: S | None = None,
        after: int = 0,
        until: int | None = None,
    ) -> Result[Replay[S], ReplayError]:
        """Replay ``session_id``; ``initial``/``after`` resume from a known state.

        ``until`` stops after that sequence (the state "as of" it).

        A stored event that can not be decoded stops the replay with a
        ``ReplayError`` whose cause is the decoding error (file, line and what
        is wrong). In lenient mode a torn final line (a crash mid-write) is
        dropped; any other damage is an error in both modes.
        """
        events: Iterable[StoredEvent] = self.store.read(session_id, after=after)
        if until is not None:
            events = itertools.takewhile(lambda stored: stored.sequence <= until, events)
        reading = _Reading(events)
        result = fold_events(
            projection, reading, strict=strict, retention=retention, initial=initial, after=after
        )
        error = reading.error
        if error is None or isinstance(result, Failure):
            return result
        if error.torn and not strict:
            return result
        replay = result.unwrap()
        sequence = replay.last_sequence + 1
        return Failure(
            ReplayError(
                sequence=sequence,
                cause=error.error,
                message=f"sequence {sequence}: cannot read the event after sequence "
                f"{replay.last_sequence}: {error.error}",
            )
        )


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class DuplicateInvocation:
    """An invocation id requested in two sessions (or twice in one)."""

    invocation_id: InvocationId
    first_session: SessionId
    second_session: SessionId
    message: str

    def __str__(self) -> str:
        return self.message


@final
class DefaultToolRepository:
    """``ToolState`` per session, rebuilt through an :class:`EventReplayer`.

    It keeps the last persistent state it built for each session and, on the
    next ``get``, folds only the events appended since. The cache holds
    immutable values, so a state handed out never changes afterwards.
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
