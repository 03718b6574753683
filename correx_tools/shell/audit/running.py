"""A store's sessions audited: each read once, in order, through the rules.

Nothing of a session is held but what the auditor keeps (its calls in flight and its
bounded flow set): the events are read as the store streams them and let go.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import final

from ...core.audit.auditor import SessionAuditor
from ...core.audit.finding import Finding
from ...core.audit.policy import CompiledPolicy
from ...core.lifecycle.events import StoredEvent
from ...core.report.redaction import Redaction
from ...core.tools.capability import ToolCapability
from ...core.tools.ids import SessionId
from ..stores.port import EventStore
from ..transcripts.description import described
from .evidence import evidence_value
from .policy_file import capability_table


@final
@dataclass(slots=True)
class Audited:
    """What an audit looked at: sessions, events, calls, and the calls of unknown tools."""

    sessions: int = 0
    events: int = 0
    calls: int = 0
    unknown: dict[str, int] = field(default_factory=dict)


def audit_store(
    store: EventStore,
    policy: CompiledPolicy,
    sessions: Sequence[SessionId] | None = None,
    *,
    audited: Audited | None = None,
    declared: Mapping[str, frozenset[ToolCapability]] | None = None,
) -> Iterator[Finding]:
    """Every finding of ``sessions`` (all the store's if ``None``), session by session, each
    as soon as it is found; ``audited`` is filled in as they are read."""
    redaction = Redaction.with_patterns(policy.policy.secret_patterns)
    seen = audited if audited is not None else Audited()
    for session in store.sessions() if sessions is None else sessions:
        seen.sessions += 1
        yield from audit_events(
            session, store.read(session), policy, redaction, seen, declared=declared
        )


def audit_events(
    session: str,
    events: Iterator[StoredEvent],
    policy: CompiledPolicy,
    redaction: Redaction,
    audited: Audited,
    *,
    declared: Mapping[str, frozenset[ToolCapability]] | None = None,
) -> Iterator[Finding]:
    """The findings of one session's events (read once, in order)."""
    first = next(events, None)
    if first is None:
        return
    about = described([first])
    auditor = SessionAuditor(
        session, policy, capability_table(),
        evidence=evidence_value, redaction=redaction,
        format=None if about is None else about.format,
        workspace=None if about is None else about.about.cwd,
        declared=declared,
    )  # fmt: skip
    audited.events += 1
    yield from auditor.feed(first)
    for stored in events:
        audited.events += 1
        yield from auditor.feed(stored)
    audited.calls += auditor.calls
    for tool, count in auditor.unknown.items():
        audited.unknown[tool] = audited.unknown.get(tool, 0) + count
