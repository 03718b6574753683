"""What the file and database stores share on the way in: numbering, checks, one front.

`BatchWritingStore` numbers an append's payloads (or groups an import's
stored events by session) and hands them to the store's one transaction;
the functions here are the checks every store makes the same way.
"""

from __future__ import annotations

import operator
from collections.abc import Iterable, Iterator, Sequence
from datetime import UTC, datetime
from typing import Self

from returns.result import Failure, Result

from ...core.lifecycle.events import StoredEvent, ToolInvocationRequestedEvent
from ...core.tools.ids import SessionId
from .codec.encoding import EncodedEvent, encode_event
from .port import AppendError, AppendErrorKind


class Refused(Exception):
    """An append or import refused inside its transaction: the transaction is rolled back
    and ``error`` returned as the ``Failure`` (every store refuses this one way)."""

    def __init__(self, error: AppendError) -> None:
        super().__init__(error.message)
        self.error = error


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


_LARGEST = 2**63 - 1
"""The largest sequence a store keeps (a database's 64-bit integer)."""


def _sequence(given: object) -> int:
    """``expected_sequence`` as a plain int: any integer (an ``IntEnum`` too) from 0 to the
    largest a store keeps; never a bool, a float or a string, which would number events
    wrongly."""
    try:
        if isinstance(given, bool):
            raise TypeError
        number = operator.index(given)  # type: ignore[arg-type]  # checked here, at run time
    except TypeError:
        number = -1
    if not 0 <= number <= _LARGEST:
        shown = "an integer past that" if number > _LARGEST else f"{given!r:.40}"
        raise ValueError(
            f"expected_sequence must be an int from 0 to 2**63 - 1 (the session's last "
            f"sequence), got {shown}"
        )
    return number


def encode_payload(
    stored: StoredEvent, recorded_at: str | None = None
) -> EncodedEvent | AppendError:
    """The stored form of ``stored`` (see `encode_event`), or why it has none.

    Every store calls this before it writes: an event that would not read back
    as itself, or is over `MAX_EVENT_BYTES`,
    is an ``INVALID_EVENT`` naming the field, and nothing is written.
    """
    try:
        return encode_event(stored, recorded_at)
    except (TypeError, ValueError) as error:
        return invalid_event(stored, str(error))


def invalid_event(stored: StoredEvent, problem: str) -> AppendError:
    """An ``INVALID_EVENT`` error naming the event's sequence and ``problem``."""
    return AppendError(
        kind=AppendErrorKind.INVALID_EVENT,
        session_id=stored.session_id,
        message=f"sequence {stored.sequence}: {problem}",
    )


def conflict(session_id: str, expected: int, actual: int) -> AppendError:
    """The error of a stale ``expected_sequence`` (``actual`` < 0: not known)."""
    holds = f"holds {actual} event{'s' if actual != 1 else ''}" if actual >= 0 else "has moved on"
    return AppendError(
        kind=AppendErrorKind.CONFLICT,
        session_id=session_id,
        message=(
            f"session {session_id!r}: expected it at sequence {expected}, but the store {holds} "
            "(another writer appended, or these events were written before); "
            "read the session and decide again"
        ),
    )


def duplicate(session_id: str, invocation_id: str, other: str) -> AppendError:
    """The error of an invocation id already used (in ``other``)."""
    return AppendError(
        kind=AppendErrorKind.DUPLICATE_INVOCATION,
        session_id=session_id,
        other_session=other,
        invocation_id=invocation_id,
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


def check_continues(
    session_id: str, last: int, events: Sequence[StoredEvent], expected: int | None
) -> AppendError | None:
    """Why ``events`` may not follow a session at ``last``, if they may not.

    An append (``expected`` given) must find the session where its writer saw
    it; an import (``expected`` is ``None``) must continue it exactly.
    """
    if expected is not None:
        return None if last == expected else conflict(session_id, expected, last)
    return check_import_run(session_id, last, events)


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
            expected_sequence = _sequence(expected_sequence)
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
