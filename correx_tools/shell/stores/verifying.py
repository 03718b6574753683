"""Checking a whole store end to end, as ``correx-tools verify`` does.

A store that keeps an index checks each session itself, the events and every
index row against a fresh fold of them (`IndexedStore.verify_session`). Any
other store — a JSONL log, memory, a database of an older layout read as it is
— is read event by event: every line's checksum (the log's reader checks it),
the numbering of each session (no gap, no repeat), and invocation ids used
once across the store. A log is read on past a damaged line, which is the fault
of the session it names (a line changed by hand still names its session and
sequence); only a line that names none is the log's own fault. Nothing here writes.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator

from ...core.lifecycle.events import StoredEvent, ToolInvocationRequestedEvent
from ...core.tools.ids import SessionId
from .fanout import Workers
from .jsonl import JsonlEventLog
from .log_lines import DamagedLine
from .port import EventStore, Fault, IndexedStore, LocatedStore, SessionCheck, StoreReadError
from .sql.store import SqlEventStore


def verify_store(
    store: EventStore, sessions: Iterable[SessionId] | None = None, *, workers: int = 1
) -> Iterator[SessionCheck]:
    """Check each of ``sessions`` of ``store`` (every session, if ``None``), one at a time
    (streamed: memory is bounded by a session's invocations, not its events). A database
    checks a large session in parts, ``workers`` processes at once (this one among them;
    `fanout`), with the same answer."""
    if isinstance(store, IndexedStore) and not store.needs_upgrade:
        chosen = store.sessions() if sessions is None else sessions
        if workers > 1 and isinstance(store, SqlEventStore) and isinstance(store, LocatedStore):
            with Workers(store.address, workers) as runner:
                for session in chosen:
                    yield store.verify_session(session, runner=runner)
            return
        for session in chosen:
            yield store.verify_session(session)
        return
    owners: dict[str, str] = {}
    if isinstance(store, JsonlEventLog):
        # Read once for every session (reading it per session would read it n times); a
        # line that cannot be read is found even before the sessions are known.
        yield from _whole_log(store, None if sessions is None else set(sessions), owners)
        return
    for session in store.sessions() if sessions is None else sessions:
        yield _check_events(session, _read(store, session), owners)


def _read(store: EventStore, session: SessionId) -> Iterator[StoredEvent | StoreReadError]:
    try:
        yield from store.read(session)
    except StoreReadError as error:
        yield error


def _whole_log(
    log: JsonlEventLog, wanted: set[SessionId] | None, owners: dict[str, str]
) -> Iterator[SessionCheck]:
    """A log read once for every session it holds (or the ``wanted`` ones)."""
    checks: dict[str, _Numbering] = {}
    unclaimed: list[DamagedLine] = []
    for item in log.scan():
        session = item.session_id
        if session is None:
            assert isinstance(item, DamagedLine)  # every event has its session
            unclaimed.append(item)
            continue
        if wanted is not None and session not in wanted:
            continue
        numbering = checks.get(session)
        if numbering is None:
            numbering = checks[session] = _Numbering(session, owners)
        if isinstance(item, DamagedLine):
            numbering.damaged(item.sequence, item.error)
        else:
            numbering.take(item)
    for name in sorted(checks):
        yield checks[name].check()
    for damage in unclaimed:
        # A line that names no session (not JSON, a line over the limit): the log's fault.
        whole = _Numbering("", owners)
        whole.damaged(None, damage.error)
        yield whole.check()


def _check_events(
    session: SessionId, events: Iterable[StoredEvent | StoreReadError], owners: dict[str, str]
) -> SessionCheck:
    numbering = _Numbering(session, owners)
    for item in events:
        if isinstance(item, StoreReadError):
            numbering.broken(item)
            break
        numbering.take(item)
    return numbering.check()


class _Numbering:
    """One session's events as they come: numbered from 1 without a gap or a repeat, and
    each invocation id requested once in the whole store (``owners``)."""

    def __init__(self, session: str, owners: dict[str, str]) -> None:
        self.session, self.owners = session, owners
        self.last = self.invocations = 0
        self.faults: list[Fault] = []
        self.here: set[str] = set()

    def _fault(self, sequence: int | None, message: str) -> None:
        self.faults.append(
            Fault(session_id=self.session, sequence=sequence, in_events=True, message=message)
        )

    def take(self, stored: StoredEvent) -> None:
        if self.faults:
            return
        if stored.sequence != self.last + 1:
            if stored.sequence <= self.last:
                self._fault(stored.sequence, "the sequence is stored twice")
            else:
                self._fault(self.last + 1, "the event is missing: a gap")
            return
        self.last = stored.sequence
        event = stored.event
        if isinstance(event, ToolInvocationRequestedEvent):
            self.invocations += 1
            other = self.owners.setdefault(event.invocation_id, self.session)
            if other != self.session or event.invocation_id in self.here:
                where = "here" if other == self.session else f"in session {other!r}"
                self._fault(
                    stored.sequence,
                    f"invocation {event.invocation_id!r} was requested {where} before",
                )
            self.here.add(event.invocation_id)

    def broken(self, error: StoreReadError) -> None:
        if not self.faults:
            self._fault(error.sequence or self.last + 1, f"cannot be read: {error.error}")

    def damaged(self, sequence: int | None, error: object) -> None:
        """A line of this session that cannot be read (``sequence``: the one it names)."""
        if not self.faults:
            self._fault(sequence or self.last + 1, f"cannot be read: {error}")

    def check(self) -> SessionCheck:
        return SessionCheck(
            session_id=self.session,
            events=self.last,
            invocations=self.invocations,
            faults=tuple(self.faults),
        )
