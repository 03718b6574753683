"""Replaying a session from a store: the store's events through the fold."""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Iterator
from typing import Any, TypeVar, final

from returns.result import Failure, Result

from ...core.lifecycle.events import StoredEvent
from ...core.replay.errors import ReplayError
from ...core.replay.fold import Replay, fold_events
from ...core.replay.projection import Projection
from ...core.replay.retention import Retention
from ...core.tools.ids import SessionId
from ..stores.port import EventStore, StoreReadError

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
