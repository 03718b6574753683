"""A session's audit kept and moved on as the session grows (the debugger's panel).

Each session asked about keeps its auditor (its calls in flight and bounded flow set), the
sequence it has read through, and its findings (the first `MAX_KEPT`), each said as its
call stands now (a call since rejected: an attempt, `as_ended`); a question reads
only the events after that sequence; the `MAX_SESSIONS` most recently asked are kept. A
session that shrank or was rewritten (its first event's evidence changed) is audited again
from the start.
"""

from __future__ import annotations

import threading
from dataclasses import dataclass, field
from typing import Any, final

from ...core.audit.auditor import SessionAuditor, as_ended
from ...core.audit.finding import Finding
from ...core.audit.policy import CompiledPolicy
from ...core.report.redaction import Redaction
from ...core.tools.ids import SessionId
from ..stores.port import EventStore, first_event
from .documents import finding_json
from .evidence import evidence_value
from .parts import audit_task, session_auditor

MAX_KEPT = 1_000
"""Findings kept per session; past it they are counted."""
MAX_SESSIONS = 64
"""Sessions whose audit is kept moving on at once; the least recently asked is let go past
it (each keeps a few MiB at most: its flow set, its answers to repeated requests) and
audited again from the start when next asked."""


@final
@dataclass(slots=True)
class _Running:
    auditor: SessionAuditor | None = None
    through: int = 0
    first: str = ""
    findings: list[Finding] = field(default_factory=list)
    more: int = 0
    lock: threading.Lock = field(default_factory=threading.Lock)


class LiveAudits:
    """Every session's audit so far, in one store (safe to ask from many threads)."""

    def __init__(
        self, store: EventStore, policy: CompiledPolicy, patterns: tuple[str, ...] = ()
    ) -> None:
        """``patterns``: what the server masks besides the policy's secrets (``--redact``):
        a finding quotes the values it is about, and shows none the other answers mask."""
        self._store = store
        self._policy = policy
        self._redaction = Redaction.with_patterns((*policy.policy.secret_patterns, *patterns))
        self._sessions: dict[SessionId, _Running] = {}
        self._lock = threading.Lock()

    def audit(self, session: SessionId) -> dict[str, Any]:
        """The session's findings through its last event now, as ``audit --json`` has them."""
        with self._lock:
            sessions = self._sessions
            running = sessions.pop(session, None) or _Running()
            sessions[session] = running  # the most recently asked last
            while len(sessions) > MAX_SESSIONS:
                del sessions[next(iter(sessions))]
        with running.lock:
            self._advance(session, running)
            auditor = running.auditor
            return {
                "session": session,
                "through": running.through,
                "calls": 0 if auditor is None else auditor.calls,
                "unknown_tools": {} if auditor is None else dict(sorted(auditor.unknown.items())),
                "findings": [
                    finding_json(f)
                    for f in as_ended(running.findings, {} if auditor is None else auditor.rejected)
                ],
                "more": running.more,
            }

    def _first(self, session: SessionId) -> str:
        first = first_event(self._store, session)
        return "" if first is None else evidence_value(first)

    def _advance(self, session: SessionId, running: _Running) -> None:
        if running.through and self._first(session) != running.first:
            running.through = 0  # rewritten since: audited again from the start
        for stored in self._store.read(session, after=running.through):
            if stored.sequence == 1:
                value = evidence_value(stored)
                running.findings, running.more, running.first = [], 0, value
                about = audit_task(self._policy, stored, None)  # what the session says
                running.auditor = session_auditor(
                    session,
                    self._policy,
                    redaction=self._redaction,
                    declared=None,
                    format=about.format,
                    workspace=about.workspace,
                )
            if running.auditor is None:
                return
            for finding in running.auditor.feed(stored):
                if len(running.findings) < MAX_KEPT:
                    running.findings.append(finding)
                else:
                    running.more += 1
            running.through = stored.sequence
