"""The event store port and its errors.

Error hierarchy:

    AppendError (a value in a Failure)  an append or import that wrote nothing
        kind CONFLICT               the session is not at expected_sequence (read, decide again)
        kind DUPLICATE_INVOCATION   the invocation id is used already, in the named session
        kind INVALID_EVENT          not encodable, or over the size limit
        kind GAP                    an import that would leave a gap or overwrite
        kind BUSY                   the store stayed locked; retriable
        kind UNAVAILABLE            the database server could not be reached; retriable
        kind DAMAGED                the session's stored events do not hold together (a gap):
                                    nothing more is written to it; see correx-tools verify
    StoreReadError (an exception)   a stored event could not be decoded while reading
    StoreLayoutError (an exception) a file or database that is not an event store (as it is)
    StaleIndex (an exception)       a time-travel index that does not match its events
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import AbstractContextManager, contextmanager
from dataclasses import dataclass
from datetime import datetime
from typing import Protocol, final, runtime_checkable

from returns.result import Result

from ...core.lifecycle.events import StoredEvent
from ...core.lifecycle.status import ToolInvocationStatus
from ...core.replay.errors import EventDecodeError
from ...core.replay.outline import InvocationOutline
from ...core.replay.stored_index import Counts, InvocationEntry
from ...core.tools.errors import CorrexError, error_value
from ...core.tools.ids import SessionId
from .addresses import StoreAddress, redact_dsn


@final
class AppendErrorKind(enum.Enum):
    """Why an append or import wrote nothing."""

    CONFLICT = "conflict"
    DUPLICATE_INVOCATION = "duplicate invocation"
    INVALID_EVENT = "invalid event"
    GAP = "gap"
    BUSY = "busy"
    UNAVAILABLE = "unavailable"
    DAMAGED = "damaged"


@final
@error_value
class AppendError(CorrexError):
    """An append that wrote nothing, and why; ``invocation_id`` and ``other_session`` for a
    duplicate id."""

    kind: AppendErrorKind
    session_id: str
    message: str
    other_session: str | None = None
    invocation_id: str | None = None


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


class StaleIndex(Exception):
    """A session's time-travel index that does not match its events: it is not to be trusted.

    Raised by a `SessionIndex` query; whoever asked answers by folding
    instead, and a writable store rebuilds the index (``correx-tools reindex``).
    """


class SessionIndex(Protocol):
    """One session's time-travel index as a store keeps it, read in one snapshot.

    Every query raises `StaleIndex` when what it reads does not match the
    events it covers.
    """

    @property
    def last_sequence(self) -> int:
        """The session's last sequence."""
        ...

    def counts_at(self, sequence: int) -> Counts:
        """Invocations by status right after ``sequence`` (`Counts`), then refused events."""
        ...

    def exited_nonzero(self, sequence: int, completed: int) -> int:
        """How many calls completed by ``sequence`` with an exit code other than 0 (at most
        ``completed``, the counters' count of completed calls)."""
        ...

    def entries(
        self,
        *,
        through: int,
        last: int | None = None,
        after: int = 0,
        first: int | None = None,
        skip: int = 0,
    ) -> list[InvocationEntry]:
        """The entries of the invocations requested after ``after`` and by ``through``, in
        request order.

        With ``last``, only the last ``last`` of them; with ``first``, the first (after the
        first ``skip``, which are left out).
        """
        ...

    def requests_between(self, a: int, b: int) -> int:
        """How many invocations were requested by the events in ``(a, b]``."""
        ...

    def entries_after(self, after: int, *, through: int, count: int) -> list[InvocationEntry]:
        """At most ``count`` entries of the invocations requested in ``(after, through]``, in
        request order (a whole session read a page at a time)."""
        ...

    def outlines_after(self, after: int, *, through: int, count: int) -> list[InvocationOutline]:
        """`entries_after`, as outlines (payloads left unread where the index allows)."""
        ...

    def rows_through(self, through: int) -> int:
        """How many invocation rows the index holds for the invocations requested by
        ``through``."""
        ...

    def entry(self, invocation_id: str) -> InvocationEntry | None:
        """The entry of one invocation of this session, if it was requested here."""
        ...

    def entries_of(self, invocation_ids: Sequence[str]) -> list[InvocationEntry | None]:
        """The entry of each of ``invocation_ids`` (`entry`), read together."""
        ...

    def changed(self, a: int, b: int) -> list[InvocationEntry]:
        """The entries with an applied event in ``(a, b]``, in request order."""
        ...

    def added_counts(self, a: int, b: int) -> list[tuple[str, ToolInvocationStatus, int]]:
        """The invocations requested in ``(a, b]``, counted by tool and status right after ``b``."""
        ...

    def ids_starting(self, prefixes: Sequence[str], count: int) -> list[list[str]]:
        """For each prefix, the first ``count`` invocation ids beginning with it, in order."""
        ...

    def ids_present(self, ids: Sequence[str]) -> set[str]:
        """Those of ``ids`` that are invocation ids of this session (by the id index)."""
        ...

    def open_entries(self, through: int, count: int | None = None) -> list[InvocationEntry]:
        """The entries still open right after ``through`` (requested or started), in order;
        ``count``, when known, is how many there are."""
        ...

    def refused(
        self, *, through: int, limit: int | None = None
    ) -> list[tuple[StoredEvent, InvocationEntry | None]]:
        """The events the lifecycle refused by ``through``, each with its invocation's entry."""
        ...


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Fault:
    """One thing wrong with a stored session, found by checking it end to end.

    ``in_events`` is true for damage to the events themselves (a gap, an event
    changed after it was written, one that cannot be read): nothing repairs
    that. Otherwise the derived index is at fault, and rebuilding it from the
    events repairs it. ``sequence`` is the first sequence at fault, where one is;
    ``session_id`` is empty for damage that belongs to no one session (a line of
    a JSONL log that cannot be read names its line in the message).
    """

    session_id: str
    sequence: int | None
    in_events: bool
    message: str

    def __str__(self) -> str:
        where = f"session {self.session_id!r}" if self.session_id else "the store"
        if self.sequence is not None and self.session_id:
            where += f", sequence {self.sequence}"
        return f"{where}: {self.message}"


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class SessionCheck:
    """What checking one session found: how much was checked, and each fault."""

    session_id: str
    events: int
    invocations: int
    faults: tuple[Fault, ...]

    @property
    def intact(self) -> bool:
        """Whether nothing is wrong."""
        return not self.faults

    @property
    def repairable(self) -> bool:
        """Whether every fault is the index's (rebuilding it from the events repairs them)."""
        return not any(fault.in_events for fault in self.faults)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Reindexed:
    """What rebuilding a store's index did: the events indexed, the sessions rebuilt, and the
    sessions whose events do not hold together (a gap, an event that cannot be decoded),
    each with why: their index is left as it was, and their events are never changed."""

    events: int
    sessions: int
    damaged: Mapping[str, str]


@runtime_checkable
class IndexedStore(Protocol):
    """A store that keeps a time-travel index beside its events (SQLite, PostgreSQL).

    What a caller may ask of such a store is declared here and checked with
    ``isinstance``; a store without an index is answered by folding.
    """

    @property
    def needs_upgrade(self) -> bool:
        """Whether it was written by an older release and keeps no index to answer from
        until it is upgraded (``correx-tools reindex``)."""
        ...

    @property
    def outdated(self) -> bool:
        """Whether it was written by an older release: writing to it needs an upgrade
        first (``correx-tools reindex``). Every store that `needs_upgrade` is outdated; a
        store whose index this release still reads is outdated and answers from it."""
        ...

    @property
    def upgraded(self) -> Reindexed | None:
        """What upgrading it in place did, when it was opened with ``upgrade=True`` and
        needed it (``None`` otherwise)."""
        ...

    def session_index(self, session_id: SessionId) -> AbstractContextManager[SessionIndex | None]:
        """The session's index, or ``None`` where there is none to trust (answer by folding)."""
        ...

    def distrust_index(self, session_id: SessionId) -> None:
        """Mark the session's index stale, to be rebuilt before it is trusted again."""
        ...

    def read_decoded(self, session_id: SessionId, *, after: int = 0) -> Iterator[StoredEvent]:
        """The session's events, each decoded in full from its own JSON whatever its index
        says: what a copy of the store is made from."""
        ...

    def verify_session(self, session_id: SessionId) -> SessionCheck:
        """Check the session's events, and every row of its index against a fresh fold of
        them, in one read snapshot (it writes nothing)."""
        ...

    def repair_index(self, session_id: SessionId) -> str | None:
        """Rebuild the session's index from its events, in one transaction of its own:
        ``None`` once rebuilt, or why not (its events are damaged; the old index is left
        as it was)."""
        ...

    def reindex(
        self, progress: Callable[[int, int], None] | None = None, *, accept_edits: bool = False
    ) -> Reindexed:
        """Rebuild every session's index from its events (what was done, and the sessions
        whose events stopped it: their index is left as it was); ``accept_edits`` indexes
        events changed after they were written as they are now."""
        ...


@runtime_checkable
class SequencedStore(Protocol):
    """A store that knows a session's last sequence without reading its events."""

    def last_sequence(self, session_id: SessionId) -> int:
        """The session's last sequence (0 for a session with no events)."""
        ...


@runtime_checkable
class ClosableStore(Protocol):
    """A store that holds a file or a connection open until it is closed."""

    def close(self) -> None:
        """Release what the store holds."""
        ...


@runtime_checkable
class LocatedStore(Protocol):
    """A store that lives outside the process and can be opened again elsewhere."""

    @property
    def address(self) -> StoreAddress:
        """What opens this store again, in another process."""
        ...


def store_name(store: object) -> str:
    """How a message names a store: its file or URL (a password masked), never its ``repr``."""
    if isinstance(store, LocatedStore):
        return redact_dsn(store.address.location)
    return f"the {type(store).__name__}"


@contextmanager
def closed_after(events: Iterator[StoredEvent]) -> Iterator[Iterator[StoredEvent]]:
    """``events`` (a store's read), closed on leaving: a read that stops early lets its
    database cursor go then, not whenever the generator is collected."""
    try:
        yield events
    finally:
        close = getattr(events, "close", None)
        if close is not None:
            close()


def session_events(
    store: EventStore, session_id: SessionId, *, after: int = 0
) -> AbstractContextManager[Iterator[StoredEvent]]:
    """The session's events after ``after``, closed on leaving (`closed_after`)."""
    return closed_after(store.read(session_id, after=after))


def first_event(store: EventStore, session_id: SessionId, *, after: int = 0) -> StoredEvent | None:
    """The session's first event after ``after`` (``None``: there is none), read alone."""
    with session_events(store, session_id, after=after) as events:
        return next(events, None)
