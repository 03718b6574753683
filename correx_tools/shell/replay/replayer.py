"""Replaying a session from a store: the store's events through the fold."""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Protocol, TypeVar, final

from returns.result import Failure, Result

from ...core.lifecycle.events import StoredEvent
from ...core.replay.errors import EventDecodeError, ReplayError
from ...core.replay.fold import Replay, fold_events
from ...core.replay.projection import Projection
from ...core.replay.retention import Retention
from ...core.tools.ids import SessionId
from ..stores.port import EventStore, SequencedStore, StoreReadError

S = TypeVar("S")
T = TypeVar("T")


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


CANNOT_READ = "cannot read: "
"""How a `ReplayError` begins whose store could not be read at all (no event's fault)."""


def unreadable(error: StoreReadError, sequence: int | None = None) -> ReplayError:
    """The `ReplayError` of a store that could not be read at ``sequence`` (by default the
    one ``error`` names): what a question answers when the store fails under it."""
    at = error.sequence if sequence is None else sequence
    if at < 1:  # no event's place: the store itself could not be read (a server gone)
        return ReplayError(sequence=1, cause=error.error, message=f"{CANNOT_READ}{error.error}")
    return ReplayError(
        sequence=at,
        cause=error.error,
        message=f"sequence {at}: cannot read the event after sequence {at - 1}: {error.error}",
    )


def answered_or_unreadable(answer: Callable[[], Result[T, ReplayError]]) -> Result[T, ReplayError]:
    """``answer()``; a store that cannot be read under it is a `ReplayError` too, as a
    fold's read is (`unreadable`)."""
    try:
        return answer()
    except StoreReadError as error:
        return Failure(unreadable(error))


def unanswered(error: ReplayError) -> StoreReadError:
    """What a question answering a plain value raises where a fold under it failed: the
    read error (`unreadable` the other way round)."""
    cause = error.cause
    if not isinstance(cause, EventDecodeError):
        cause = EventDecodeError(source="", line=None, message=error.message)
    return StoreReadError(cause, sequence=error.sequence)


class ReadProgress(Protocol):
    """Shown the events of a session as they are read (a progress bar on a terminal, say)."""

    @property
    def shown(self) -> bool:
        """Whether anything is shown at all (if not, nothing is counted for it)."""
        ...

    def watch(
        self, label: str, total: int | None, events: Iterator[StoredEvent]
    ) -> Iterator[StoredEvent]:
        """``events``, shown as they pass (``total``: how many will, if known)."""
        ...


@final
class EventReplayer:
    """Reads one session from a store and folds it through a projection.

    ``progress``, when given, is shown every session read (see `ReadProgress`).
    """

    def __init__(self, store: EventStore, *, progress: ReadProgress | None = None) -> None:
        self.store = store
        self.progress = progress

    def events(
        self, session_id: SessionId, *, after: int = 0, until: int | None = None
    ) -> Iterator[StoredEvent]:
        """The session's events after ``after`` (through ``until``), as the replay reads them."""
        events: Iterator[StoredEvent] = iter(self.store.read(session_id, after=after))
        if until is not None:
            events = itertools.takewhile(lambda stored: stored.sequence <= until, events)
        progress = self.progress
        if progress is not None and progress.shown:
            total = until
            if isinstance(self.store, SequencedStore):
                last = self.store.last_sequence(session_id)
                total = last if until is None else min(last, until)
            label = f"replaying {session_id}"
            events = progress.watch(label, None if total is None else total - after, events)
        return events

    def last_sequence(self, session_id: SessionId) -> int:
        """The session's last sequence: the store's answer, or its events counted."""
        if isinstance(self.store, SequencedStore):
            return self.store.last_sequence(session_id)
        events: Iterator[StoredEvent] = iter(self.store.read(session_id))
        if self.progress is not None and self.progress.shown:
            events = self.progress.watch(f"counting the events of {session_id}", None, events)
        return sum(1 for _ in events)

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
        reading = _Reading(self.events(session_id, after=after, until=until))
        result = fold_events(
            projection, reading, strict=strict, retention=retention, initial=initial, after=after
        )
        error = reading.error
        if error is None or isinstance(result, Failure):
            return result
        if error.torn and not strict:
            return result
        return Failure(unreadable(error, result.unwrap().last_sequence + 1))
