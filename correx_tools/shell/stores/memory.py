"""The in-memory store: for tests, examples and short-lived agents."""

from __future__ import annotations

import threading
from collections.abc import Iterator, Sequence
from typing import final

from returns.result import Failure, Result, Success

from ...core.lifecycle.events import StoredEvent
from ...core.tools.ids import SessionId
from .codec.rows import encode_rows
from .port import AppendError
from .writing import BatchWritingStore, check_import_run, conflict, duplicate, requested_ids


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
            events = self._events.get(session_id, [])[max(after, 0) :]
        return iter(events)

    def last_sequence(self, session_id: SessionId) -> int:
        """The session's last sequence (0 for a session with no events)."""
        with self._lock:
            return len(self._events.get(session_id, ()))

    def sessions(self) -> tuple[SessionId, ...]:
        """Every session with at least one event, sorted."""
        with self._lock:
            return tuple(SessionId(name) for name in sorted(self._events))
