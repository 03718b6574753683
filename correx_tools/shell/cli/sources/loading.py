"""Asking the library what the command needs: a repository over the store, with progress.

Questions go to `DefaultToolRepository`, which answers
from a store's time-travel index where it has one and folds otherwise; folds
show progress on a terminal.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from contextlib import contextmanager
from typing import NamedTuple, TextIO, TypeVar

from returns.result import Result, Success

from ....core.lifecycle.events import StoredEvent
from ....core.lifecycle.state import ToolState
from ....core.lifecycle.transitions import TransitionError
from ....core.replay.errors import ReplayError
from ....core.replay.fold import Replay
from ....core.replay.projection import ToolProjector
from ....core.replay.retention import Retention
from ....core.replay.timeline import Timeline
from ....core.tools.ids import InvocationId, SessionId
from ...replay.replayer import CANNOT_READ, EventReplayer
from ...replay.repository import DefaultToolRepository
from ...replay.view import SessionView
from ...stores.port import EventStore, IndexedStore
from ...transcripts.description import session_description
from ..errors import CliError
from ..output.terminal import Progress
from .stores import note_unindexed, open_source_or_agents

TIMELINE_STRIDE = 256
SESSION_HELP = "a session's id, or the start of exactly one (as git takes a commit's)"
INVOCATION_HELP = (
    "an invocation's id, or its id without the session's own prefix (call-00005), or the "
    "start of exactly one of those"
)
T = TypeVar("T")


class TerminalProgress:
    """A bar on ``stream`` for each session a replay reads, when it is a terminal."""

    def __init__(self, stream: TextIO) -> None:
        self.stream = stream

    @property
    def shown(self) -> bool:
        """Only a terminal shows a bar."""
        return self.stream.isatty()

    def watch(
        self, label: str, total: int | None, events: Iterator[StoredEvent]
    ) -> Iterator[StoredEvent]:
        """``events`` with a bar counting them."""
        return Progress(label, total, self.stream).wrap(events)


def replayer_for(store: EventStore) -> EventReplayer:
    """A replayer over ``store`` that shows its reads on a terminal."""
    return EventReplayer(store, progress=TerminalProgress(sys.stderr))


def repository_for(store: EventStore, source: str, *, lenient: bool) -> DefaultToolRepository:
    """A repository over ``store``; a note on stderr when its layout keeps no index."""
    if isinstance(store, IndexedStore) and store.needs_upgrade:
        print(
            f"note: {source} was written by an older release and keeps no time-travel index; "
            f"answering by folding (run correx-tools reindex {source} to upgrade it)",
            file=sys.stderr,
        )
    note_unindexed(store, source)
    return DefaultToolRepository(replayer_for(store), strict=not lenient)


def find_session(store: EventStore, name: str, source: str) -> SessionId:
    """The session ``name`` names in the store (its id, or the start of exactly one), or a
    one-line error: the first few it could mean, or the sessions there are."""
    found = DefaultToolRepository(EventReplayer(store)).resolve_session(name)
    if isinstance(found, Success):
        session: SessionId = found.unwrap()
        return session
    error = found.failure()
    if error.ambiguous:
        raise CliError(f"{source}: {error}")
    known = ", ".join(store.sessions()[:5]) or "none"
    raise CliError(f"{source}: no session {name!r} (sessions: {known})")


def find_invocation(view: SessionView, name: str) -> InvocationId:
    """The invocation ``name`` names in the view's session (its id, its id without the
    session's own prefix, or a prefix of exactly one of them), or a one-line error."""
    found = view.resolve(name)
    if not isinstance(found, Success):
        raise CliError(str(found.failure()))
    invocation: InvocationId = found.unwrap()
    return invocation


def answered(result: Result[T, ReplayError], session: SessionId, *, lenient: bool) -> T:
    """The answer, or a one-line error with what to do next: for an event the lifecycle
    refused, that lenient mode skips it; for events that do not hold together (a gap, one
    that cannot be read), that ``verify`` checks the store; a store that cannot be reached
    at all says why in its own words."""
    if not isinstance(result, Success):
        error = result.failure()
        if isinstance(error.cause, TransitionError):
            hint = "" if lenient else " (--lenient skips events the lifecycle refuses)"
        elif error.message.startswith(CANNOT_READ):
            hint = ""  # the store could not be reached: its own words say why
        else:
            hint = " (the events themselves are damaged: correx-tools verify checks the store)"
        raise CliError(f"session {session!r}: {error.message}{hint}")
    value: T = result.unwrap()
    return value


def in_range(view: SessionView, value: int, name: str) -> int:
    """``value`` if it is a sequence of the session (0 included), else a one-line error."""
    last = view.last_sequence
    if not 0 <= value <= last:
        raise CliError(
            f"{name}={value} is outside session {view.session_id!r} (sequences 0..{last})"
        )
    return value


class OpenedSession(NamedTuple):
    """The store a command's SOURCE names, the session its SESSION names there, and one
    view of that session (one snapshot: every answer of the command agrees)."""

    store: EventStore
    session: SessionId
    view: SessionView


@contextmanager
def opened_session(args: argparse.Namespace, *, lenient: bool) -> Iterator[OpenedSession]:
    """``args.session`` of ``args.source``, seen in one view (strict unless ``lenient``);
    a one-line error for a source or session that is not there."""
    store, label = open_source_or_agents(args.source)
    session = find_session(store, args.session, label)
    repository = repository_for(store, label, lenient=lenient)
    with repository.view(session) as view:
        yield OpenedSession(store, session, view)


def times_recorded(store: EventStore, session: SessionId) -> bool:
    """Whether the session's times are real: false for one imported from a transcript that
    records no time (its description says so; only its first event is read)."""
    described = session_description(store, session)
    return described is None or described.times_recorded


def asked_at(args: argparse.Namespace, view: SessionView) -> int:
    """The sequence ``--at`` asks for (the session's last without one), or a one-line error
    for one outside the session."""
    asked: int | None = getattr(args, "at", None)
    return view.last_sequence if asked is None else in_range(view, asked, "--at")


def replay_session(
    store: EventStore,
    session: SessionId,
    *,
    lenient: bool,
    until: int | None = None,
    retention: Retention | None = None,
) -> Replay[ToolState]:
    """A fold of the session (the demo's, which shows a replay as it happens)."""
    result = replayer_for(store).replay(
        session, ToolProjector(), strict=not lenient, retention=retention, until=until
    )
    replay: Replay[ToolState] = answered(result, session, lenient=lenient)
    return replay


def session_timeline(store: EventStore, session: SessionId) -> Timeline[ToolState]:
    """A lenient timeline of the session (time travel through illegal events still works)."""
    timeline = replay_session(
        store, session, lenient=True, retention=Retention.every(TIMELINE_STRIDE)
    ).timeline
    assert timeline is not None
    return timeline
