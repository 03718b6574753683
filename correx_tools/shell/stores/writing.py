"""The event store port, its errors, and the in-memory adapter.

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
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Protocol, Self, TypeVar, final

from returns.result import Failure, Result, Success

from ..core.events import (
    StoredEvent,
    ToolInvocationRequestedEvent,
    checked_stored_event,
    utc,
)
from ..core.ids import SessionId
from ..core.replay_error import EventDecodeError
from .encoding import EncodedEvent, encode_event
from .envelope import (
    EnvelopeError,
    decode_payload,
    encode_utf8,
    loads_strict,
    parse_timestamp,
)


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


def now_utc() -> datetime:
    """The shell's clock."""
    return datetime.now(UTC)


def number_events(
    session_id: SessionId, events: Sequence[object], after: int, recorded_at: datetime
) -> tuple[StoredEvent, ...]:
    """Wrap payloads as stored events numbered after ``after``."""
    return tuple(
        StoredEvent(
            session_id=session_id, sequence=after + offset, recorded_at=recorded_at, event=event
        )
        for offset, event in enumerate(events, start=1)
    )


def encode_payload(stored: StoredEvent) -> EncodedEvent | AppendError:
    """The stored form of ``stored`` (see :func:`~.encoding.encode_event`), or why it has none.

    Every store calls this before it writes: an event that would not read back
    as itself, or is over :data:`~correx_tools.shell.envelope.MAX_EVENT_BYTES`,
    is an ``INVALID_EVENT`` naming the field, and nothing is written.
    """
    try:
        return encode_event(stored)
    except (TypeError, ValueError) as error:
        return _invalid(stored, str(error))


def _invalid(stored: StoredEvent, problem: str) -> AppendError:
    return AppendError(
        kind=AppendErrorKind.INVALID_EVENT,
        session_id=stored.session_id,
        message=f"sequence {stored.sequence}: {problem}",
    )


Row = TypeVar("Row")


def encode_rows(
    groups: Iterable[tuple[str, Sequence[StoredEvent]]],
    row: Callable[[str, StoredEvent, EncodedEvent], Row],
) -> list[Row] | AppendError:
    """Every event of ``groups`` encoded and shaped by ``row``, or the first refusal."""
    rows: list[Row] = []
    for session_id, events in groups:
        for stored in events[:1]:
            try:
                encode_utf8(session_id)
            except ValueError as error:
                return _invalid(stored, f"the session id: {error}")
        for stored in events:
            encoded = encode_payload(stored)
            if isinstance(encoded, AppendError):
                return encoded
            rows.append(row(session_id, stored, encoded))
    return rows


def decode_row(
    where: str, session_id: SessionId, row: tuple[int, datetime | str, str, int, str]
) -> StoredEvent:
    """A database row ``(sequence, recorded_at, type, version, data)`` as a stored event.

    Damage is a :class:`StoreReadError` naming ``where``, the session and the sequence.
    """
    sequence, recorded_at, type_tag, version, data = row
    try:
        body = loads_strict(data)
        if not isinstance(body, dict):
            raise EnvelopeError("data must be a JSON object")
        if type(sequence) is not int or sequence < 1:
            raise EnvelopeError(f"sequence {sequence!r} is not an integer >= 1")
        return checked_stored_event(
            session_id,
            sequence,
            utc(recorded_at) if isinstance(recorded_at, datetime) else parse_timestamp(recorded_at),
            decode_payload(type_tag, version, body),
        )
    except (EnvelopeError, ValueError, TypeError) as error:
        place = f"{where} (session {session_id!r}, sequence {sequence})"
        raise StoreReadError(
            EventDecodeError(source=place, line=None, message=str(error)), sequence=sequence
        ) from None


def conflict(session_id: str, expected: int, actual: int) -> AppendError:
    """The error of a stale ``expected_sequence`` (``actual`` < 0: not known)."""
    where = f"is at sequence {actual}, not {expected}" if actual >= 0 else f"moved past {expected}"
    return AppendError(
        kind=AppendErrorKind.CONFLICT,
        session_id=session_id,
        message=f"session {session_id!r} {where}: another writer appended first",
    )


def duplicate(session_id: str, invocation_id: str, other: str) -> AppendError:
    """The error of an invocation id already used (in ``other``)."""
    return AppendError(
        kind=AppendErrorKind.DUPLICATE_INVOCATION,
        session_id=session_id,
        other_session=other,
        message=f"invocation {invocation_id!r} was already requested in session {other!r}",
    )


def requested_ids(events: Iterable[StoredEvent]) -> Iterator[tuple[str, StoredEvent]]:
    """The invocation ids that ``events`` request, with their events."""
    for stored in events:
        if isinstance(stored.event, ToolInvocationRequestedEvent):
            yield stored.event.invocation_id, stored


def group_import(stored_events: Iterable[StoredEvent]) -> dict[str, list[StoredEvent]]:
    """Events to import by session, in the order given."""
    grouped: dict[str, list[StoredEvent]] = {}
    for stored in stored_events:
        grouped.setdefault(stored.session_id, []).append(stored)
    return grouped


def check_import_run(
    session_id: str, last: int, events: Sequence[StoredEvent]
) -> AppendError | None:
    """An imported run must continue its session exactly: ``last + 1``, ``last + 2``, ..."""
    for expected, stored in enumerate(events, start=last + 1):
        if stored.sequence != expected:
            verb = "overwrite" if stored.sequence <= last else "leave a gap before"
            return AppendError(
                kind=AppendErrorKind.GAP,
                session_id=session_id,
                message=f"importing sequence {stored.sequence} into session {session_id!r} "
                f"(at {expected - 1}) would {verb} it",
            )
    return None


class BatchWritingStore:
    """The shared front of the file and database stores (internal).

    ``append`` numbers the payloads and ``import_events`` groups stored events
    by session; both hand the groups to ``_write_groups``, which writes them in
    one transaction (``expected`` is ``None`` for an import).
    """

    def _write_groups(
        self, groups: list[tuple[str, list[StoredEvent]]], *, expected: int | None
    ) -> Result[int, AppendError]:
        raise NotImplementedError

    def append(
        self,
        session_id: SessionId,
        events: Sequence[object],
        *,
        expected_sequence: int,
        recorded_at: datetime | None = None,
    ) -> Result[tuple[StoredEvent, ...], AppendError]:
        """Append ``events`` after ``expected_sequence``, all or none."""
        try:
            stored = number_events(session_id, events, expected_sequence, recorded_at or now_utc())
        except (TypeError, ValueError) as error:
            return Failure(
                AppendError(
                    kind=AppendErrorKind.INVALID_EVENT,
                    session_id=str(session_id),
                    message=f"session {str(session_id)[:80]!r}: {error}",
                )
            )
        written = self._write_groups([(session_id, list(stored))], expected=expected_sequence)
        return written.map(lambda _: stored)

    def import_events(self, stored_events: Iterable[StoredEvent]) -> Result[int, AppendError]:
        """Copy already-numbered events, keeping sequences and times; all or none."""
        return self._write_groups(list(group_import(stored_events).items()), expected=None)

    def close(self) -> None:
        """Release what the store holds open (nothing, unless a store says otherwise)."""

    def __enter__(self) -> Self:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


@final
class InMemoryEventStore(BatchWritingStore):
    """A thread-safe store in a dict: for tests, examples and short-lived agents."""

    def __init__(self) -> None:
        self._lock = threading.Lock()
        self._events: dict[str, list[StoredEvent]] = {}
        self._invocations: dict[str, str] = {}

    def _write_groups(
        self, groups: list[tuple[str, list[StoredEvent]]], *, expected: int | None
    ) -> Result[int, AppendError]:
        seen: dict[str, str] = {}
        with self._lock:
            for session_id, events in groups:
                last = len(self._events.get(session_id, ()))
                if expected is None:
                    problem = check_import_run(session_id, last, events)
                elif last != expected:
                    problem = conflict(session_id, expected, last)
                else:
                    problem = None
                problem = problem or self._check(session_id, events, seen)
                if problem is not None:
                    return Failure(problem)
            for session_id, events in groups:
                self._commit(session_id, events)
        return Success(sum(len(events) for _, events in groups))

    def _check(
        self, session_id: str, stored: Sequence[StoredEvent], seen: dict[str, str]
    ) -> AppendError | None:
        problem = encode_rows([(session_id, stored)], lambda *_: None)
        if isinstance(problem, AppendError):
            return problem
        for invocation, _ in requested_ids(stored):
            other = self._invocations.get(invocation) or seen.get(invocation)
            if other is not None:
                return duplicate(session_id, invocation, other)
            seen[invocation] = session_id
        return None

    def _commit(self, session_id: str, stored: Sequence[StoredEvent]) -> None:
        if not stored:
            return  # an empty append must not make a session appear
        self._events.setdefault(session_id, []).extend(stored)
        for invocation, _ in requested_ids(stored):
            self._invocations[invocation] = session_id

    def read(self, session_id: SessionId, *, after: int = 0) -> Iterator[StoredEvent]:
        """The session's events after ``after``, in sequence order."""
        with self._lock:
            events = self._events.get(session_id, [])[after:]
        return iter(events)

    def sessions(self) -> tuple[SessionId, ...]:
        """Every session with at least one event, sorted."""
        with self._lock:
            return tuple(SessionId(name) for name in sorted(self._events))
