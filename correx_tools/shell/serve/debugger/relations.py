"""Subagents: which session a call started, and which call (and session) started a session.

A subagent's session describes its parent (``parent_session_id`` in the event
that describes an imported session); the call that started it names it in
its receipt (``subagent_session``). So a call links forward to the session it
started, and a session links back to its parent session and, when the parent
names it, to the call. Each session's description is read once (its first
event); a parent's calls are looked through once per length of the parent.
"""

from __future__ import annotations

import threading
from typing import Any, final

from returns.result import Success

from ....core.replay.stored_index import record_at
from ....core.report.tool_views import subagent_of
from ....core.tools.ids import InvocationId, SessionId
from ...replay.repository import DefaultToolRepository
from ...stores.port import EventStore, StoreReadError
from ...transcripts.description import session_description


@final
class Relations:
    """The subagent links of one store's sessions, read as they are first asked for."""

    def __init__(self, store: EventStore, repository: DefaultToolRepository) -> None:
        self._store, self._repository = store, repository
        self._parents: dict[str, str | None] = {}
        self._started: dict[tuple[str, int], dict[str, tuple[str, int]]] = {}
        self._lock = threading.Lock()

    def parent(self, session: SessionId) -> SessionId | None:
        """The session that started ``session``, as its description says."""
        with self._lock:
            if session in self._parents:
                known = self._parents[session]
                return None if known is None else SessionId(known)
        try:
            described = session_description(self._store, session)
        except StoreReadError:
            described = None
        parent = None if described is None else described.about.parent_session
        with self._lock:
            self._parents[session] = parent
        return None if parent is None else SessionId(parent)

    def forget(self, session: SessionId) -> None:
        """Drop what is kept of the session (its events were replaced)."""
        with self._lock:
            self._parents.pop(session, None)
            for key in [key for key in self._started if key[0] == session]:
                del self._started[key]

    def children(self, session: SessionId, sessions: tuple[SessionId, ...]) -> list[SessionId]:
        """The sessions among ``sessions`` that ``session`` started."""
        return [other for other in sessions if other != session and self.parent(other) == session]

    def started_by(self, parent: SessionId, child: SessionId) -> tuple[InvocationId, int] | None:
        """The call of ``parent`` that names ``child`` as the session it started, and the
        sequence at which it ended."""
        last = self._repository.last_sequence(parent)
        key = (str(parent), last)
        with self._lock:
            found = self._started.get(key)
        if found is None:
            found = self._look(parent)
            with self._lock:
                self._started[key] = found
        named = found.get(str(child))
        return None if named is None else (InvocationId(named[0]), named[1])

    def _look(self, parent: SessionId) -> dict[str, tuple[str, int]]:
        """Every session a call of ``parent`` names as started, with the call and its end."""
        answer = self._repository.entries(parent)
        if not isinstance(answer, Success):
            return {}
        last, entries, _ = answer.unwrap()
        started: dict[str, tuple[str, int]] = {}
        for entry in entries:
            if entry.ended_seq is None:
                continue
            record = record_at(entry, last)
            child = None if record is None else subagent_of(record)
            if child is not None:
                started.setdefault(child, (entry.invocation_id, entry.ended_seq))
        return started


def link(session: str, ref: str, **more: Any) -> dict[str, Any]:
    """A link the page draws: the session's shown id, its ref, and what else it needs."""
    return {"session_id": session, "ref": ref, **more}
