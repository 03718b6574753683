"""Replaying what the command asks about, with progress on a terminal."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from typing import Any, TextIO

from returns.result import Success

from ...core.lifecycle.events import StoredEvent
from ...core.lifecycle.state import ToolState
from ...core.replay.fold import Replay
from ...core.replay.projection import ToolProjector
from ...core.replay.retention import Retention
from ...core.replay.timeline import Timeline
from ...core.tools.ids import SessionId
from ..replay.replayer import EventReplayer
from ..stores.port import EventStore
from .errors import CliError
from .render import Progress

TIMELINE_STRIDE = 256


class _ProgressStore:
    """A store whose ``read`` reports progress (the CLI's wrapper around the real one)."""

    def __init__(self, inner: EventStore, stream: TextIO) -> None:
        self.inner, self.stream = inner, stream

    def __getattr__(self, name: str) -> Any:
        return getattr(self.inner, name)

    def read(self, session_id: SessionId, *, after: int = 0) -> Iterator[StoredEvent]:
        total = None
        last_sequence = getattr(self.inner, "last_sequence", None)
        if self.stream.isatty() and last_sequence is not None:
            total = last_sequence(session_id)
        return Progress(f"replaying {session_id}", total, self.stream).wrap(
            self.inner.read(session_id, after=after)
        )


def replayer_for(store: EventStore) -> EventReplayer:
    return EventReplayer(_ProgressStore(store, sys.stderr))


def replay_session(
    store: EventStore,
    session: SessionId,
    *,
    lenient: bool,
    until: int | None = None,
    retention: Retention | None = None,
) -> Replay[ToolState]:
    result = replayer_for(store).replay(
        session, ToolProjector(), strict=not lenient, retention=retention, until=until
    )
    if not isinstance(result, Success):
        hint = "" if lenient else " (--lenient skips events the lifecycle refuses)"
        raise CliError(f"session {session!r}: {result.failure().message}{hint}")
    replay: Replay[ToolState] = result.unwrap()
    return replay


def session_timeline(store: EventStore, session: SessionId) -> Timeline[ToolState]:
    # Lenient: time travel through a session that holds an illegal event still works.
    timeline = replay_session(
        store, session, lenient=True, retention=Retention.every(TIMELINE_STRIDE)
    ).timeline
    assert timeline is not None
    return timeline


def check_sequence(timeline: Timeline[ToolState], value: int, name: str) -> int:
    if not 0 <= value <= len(timeline):
        raise CliError(f"{name}={value} is outside the session (sequences 0..{len(timeline)})")
    return value
