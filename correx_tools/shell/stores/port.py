"""The event store port and its errors.

Error hierarchy::

    AppendError (a value in a Failure)  an append or import that wrote nothing
        kind CONFLICT               another writer appended first (retry after reading)
        kind DUPLICATE_INVOCATION   the invocation id is used already, in the named session
        kind INVALID_EVENT          not encodable, or over the size limit
        kind GAP                    an import that would leave a gap or overwrite
        kind BUSY                   the store stayed locked; retriable
        kind UNAVAILABLE            the database server could not be reached; retriable
    StoreReadError (an exception)   a stored event could not be decoded while reading
    StoreLayoutError (an exception) a file or database that is not an event store (as it is)
"""

from __future__ import annotations

import enum
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, final

from returns.result import Result

from ...core.lifecycle.events import StoredEvent
from ...core.replay.errors import EventDecodeError
from ...core.tools.ids import SessionId


@final
class AppendErrorKind(enum.Enum):
    """Why an append or import wrote nothing."""

    CONFLICT = "conflict"
    DUPLICATE_INVOCATION = "duplicate invocation"
    INVALID_EVENT = "invalid event"
    GAP = "gap"
    BUSY = "busy"
    UNAVAILABLE = "unavailable"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class AppendError:
    """An append that wrote nothing, and why; ``other_session`` for a duplicate id."""

    kind: AppendErrorKind
    session_id: str
    message: str
    other_session: str | None = None

    def __str__(self) -> str:
        return self.message


class StoreReadError(Exception):
    """A stored event that could not be decoded; ``error`` says where and what.

    ``sequence`` is the sequence the event should have had (the last good one
    + 1) and ``torn`` is true for an unterminated final line of a log.
    """

    def __init__(self, error: EventDecodeError, *, sequence: int, torn: bool = False) -> None:
        super().__init__(str(error))
        self.error = error
        self.sequence = sequence
        self.torn = torn


class StoreLayoutError(Exception):
    """A file or database that cannot be opened as an event store as it is.

    It is not an event store, or was written by an older release and must be
    upgraded first; the message says which, and what to run.
    """


class EventStore(Protocol):
    """Where sessions' events are kept, numbered per session from 1 without gaps."""

    def append(
        self,
        session_id: SessionId,
        events: Sequence[object],
        *,
        expected_sequence: int,
        recorded_at: datetime | None = None,
    ) -> Result[tuple[StoredEvent, ...], AppendError]:
        """Append ``events`` after ``expected_sequence``, all or none."""
        ...

    def read(self, session_id: SessionId, *, after: int = 0) -> Iterator[StoredEvent]:
        """The session's events after ``after``, in sequence order."""
        ...

    def sessions(self) -> tuple[SessionId, ...]:
        """Every session with at least one event, sorted."""
        ...

    def import_events(self, stored_events: Iterable[StoredEvent]) -> Result[int, AppendError]:
        """Copy already-numbered events, keeping sequences and times; all or none."""
        ...
