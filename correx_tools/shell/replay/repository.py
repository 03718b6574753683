"""The repository of tool states: each session's state, cached, and the store-wide id check."""

from __future__ import annotations

import threading
from dataclasses import dataclass
from typing import final

from returns.result import Failure, Result, Success

from ...core.lifecycle.events import ToolInvocationRequestedEvent
from ...core.lifecycle.state import ToolState
from ...core.replay.errors import ReplayError
from ...core.replay.projection import ToolProjector
from ...core.replay.retention import Retention
from ...core.replay.timeline import Timeline
from ...core.tools.ids import InvocationId, SessionId
from .replayer import EventReplayer


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
