"""A large session audited in parts at once, joined into what one pass over it finds.

A part (events ``start + 1`` to ``end``) is audited in a worker process by an auditor that
keeps no flow tracker of its own (`SessionAuditor`'s ``recording``): the call rules and the
secrets in outputs are its to find; what it would have tracked (each untrusted call's output
cut into units and hashed) and looked up (each sink's units) it sends back in order, with
the calls still in flight at its end. An event that ends a call requested before the part
is not its to judge (it cannot know that call): it sends back only its sequence.

The join replays the parts in order through the session's one auditor: each source tracked,
each sink looked up (a hit, which is rare, is read again and its flows found as one pass
finds them), each end of an earlier part's call read again and fed, and each part's calls in
flight carried on. So the findings, their order and their evidence are the one pass's. One
pass lets the oldest call in flight go past `MAX_OPEN`; a part that may have seen that (the
calls carried into it and its own most in flight at once reach the bound) is not joined,
nor one whose hashed units outgrew `MAX_PART_KEYS`: the session is read on from that
part's start in one pass here.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import NamedTuple, final

from ...core.audit.auditor import MAX_OPEN, InFlight, SessionAuditor
from ...core.audit.finding import Finding
from ...core.audit.flows import Source
from ...core.audit.policy import CompiledPolicy, Policy, compiled
from ...core.lifecycle.description import described
from ...core.lifecycle.events import (
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
)
from ...core.replay.errors import EventDecodeError
from ...core.report.redaction import Redaction
from ...core.tools.capability import ToolCapability
from ...core.tools.capability_table import builtin_table
from ...core.tools.ids import SessionId
from ..stores.fanout import Workers
from ..stores.port import EventStore, StoreReadError, first_event, session_events
from ..stores.sql.store import SqlEventStore
from .audited import Audited
from .evidence import evidence_value

PART_EVENTS = 25_000
"""Events in a part; a session of fewer than twice as many is audited in one pass (a worker
process takes about half a second to start, the time one pass takes over some 30,000)."""

MAX_PART_KEYS = 16 << 20
"""Bytes of hashed units a part sends back at most (a part of huge writes, each cut into
many units, would otherwise hold them all): past it the part sends none, and the session is
read on from that part's start in one pass, as one pass holds no more than a call's."""

_ENDS = (ToolExecutionCompletedEvent, ToolExecutionFailedEvent, ToolExecutionRejectedEvent)


@final
@dataclass(frozen=True, slots=True)
class AuditPart:
    """Events ``start + 1`` to ``end`` of a session."""

    session_id: SessionId
    start: int
    end: int


class Track(NamedTuple):
    """Values to track: an untrusted call's output units, hashed, and where they came from."""

    keys: bytes
    source: Source


class Sink(NamedTuple):
    """The hashed units a request at ``sequence`` passes on, to be looked up."""

    sequence: int
    keys: bytes


class Again(NamedTuple):
    """An event at ``sequence`` ending a call the part did not see requested."""

    sequence: int


@final
@dataclass(frozen=True, slots=True)
class PartAudit:
    """What a part sends back: its findings and flow steps in order (``items``), its calls
    in flight at its end, the most in flight at once, and what it looked at; ``whole``
    false: it stopped, its hashed units past `MAX_PART_KEYS` (nothing else is then used)."""

    items: list[Finding | Track | Sink | Again]
    open: list[tuple[str, InFlight]]
    peak: int
    events: int
    calls: int
    unknown: dict[str, int]
    whole: bool = True
    rejected: dict[int, str] | None = None
    """The part's calls that were rejected (`SessionAuditor.rejected`)."""


@functools.lru_cache(maxsize=4)
def _compiled(policy: Policy) -> CompiledPolicy:
    return compiled(policy)  # once per process, not once per part


def session_auditor(
    session: str,
    policy: CompiledPolicy,
    *,
    format: str | None,
    workspace: str | None,
    declared: Mapping[str, frozenset[ToolCapability]] | None,
    recording: bool = False,
    redaction: Redaction | None = None,
) -> SessionAuditor:
    """An auditor of ``session`` with the package's capability table and evidence values;
    ``redaction``: what its messages mask (default: the policy's secrets)."""
    return SessionAuditor(
        session, policy, builtin_table(),
        evidence=evidence_value,
        redaction=redaction or Redaction.with_patterns(policy.policy.secret_patterns),
        format=format, workspace=workspace, declared=declared, recording=recording,
    )  # fmt: skip


@final
@dataclass(frozen=True, slots=True)
class AuditTask:
    """A part's audit, as a worker process runs it (sent there whole: the policy is
    compiled again there)."""

    policy: Policy
    format: str | None
    workspace: str | None
    declared: dict[str, frozenset[ToolCapability]] | None

    def auditor(self, session: str, *, recording: bool) -> SessionAuditor:
        """A new auditor of ``session`` by this task's policy."""
        return session_auditor(
            session, _compiled(self.policy), format=self.format,
            workspace=self.workspace, declared=self.declared, recording=recording,
        )  # fmt: skip

    def __call__(self, store: EventStore, part: AuditPart) -> PartAudit:
        auditor = self.auditor(part.session_id, recording=True)
        items: list[Finding | Track | Sink | Again] = []
        events = kept = 0
        feed, recorder = auditor.feed, auditor.recorder
        sources, sinks = recorder.sources, recorder.sinks
        with session_events(store, part.session_id, after=part.start) as read:
            for stored in read:
                sequence = stored.sequence
                if sequence > part.end:
                    break
                events += 1
                event = stored.event
                if isinstance(event, _ENDS) and not auditor.in_flight(event.invocation_id):
                    items.append(Again(sequence))
                    continue
                found = feed(stored)
                if found:
                    items += found
                if sources:
                    items += (Track(keys, source) for keys, source in sources)
                    kept += sum(len(keys) for keys, _ in sources)
                    sources.clear()
                if sinks:
                    if keys := b"".join(sinks):
                        items.append(Sink(sequence, keys))
                        kept += len(keys)
                    sinks.clear()
                if kept > MAX_PART_KEYS:
                    return PartAudit([], [], 0, events, 0, {}, whole=False)
        return PartAudit(
            items, auditor.open_calls(), auditor.peak, events, auditor.calls, auditor.unknown,
            rejected=auditor.rejected,
        )  # fmt: skip


def audit_task(
    policy: CompiledPolicy,
    first: StoredEvent,
    declared: Mapping[str, frozenset[ToolCapability]] | None,
) -> AuditTask:
    """The audit of the session whose first event is ``first``: by ``policy``, with what
    the session says of itself there (its format, its working directory)."""
    about = described([first])
    return AuditTask(
        policy.policy,
        None if about is None else about.format,
        None if about is None else about.about.cwd,
        None if declared is None else dict(declared),
    )


def audit_in_parts(
    store: SqlEventStore,
    session: SessionId,
    task: AuditTask,
    runner: Workers,
    audited: Audited,
    *,
    part_events: int = PART_EVENTS,
    rejected: dict[int, str] | None = None,
) -> Iterator[Finding]:
    """The findings of ``session`` as one pass of ``task``'s auditor finds them, its parts
    audited by ``runner`` (`stream`); what was looked at is counted in ``audited``, the
    calls rejected put in ``rejected`` (as `SessionAuditor.rejected`)."""
    last = store.last_sequence(session)
    auditor = task.auditor(session, recording=False)
    parts = [
        AuditPart(session, start, min(start + part_events, last))
        for start in range(0, last, part_events)
    ]
    results = runner.stream(task, parts, lambda part: task(store, part))
    try:
        for part, done in zip(parts, results, strict=True):
            if not done.whole or auditor.open_count + done.peak >= MAX_OPEN:
                results.close()  # the parts not yet joined are not needed
                with session_events(store, session, after=part.start) as rest:
                    for stored in rest:
                        audited.events += 1
                        yield from auditor.feed(stored)
                break
            audited.events += done.events
            audited.add(done.calls, done.unknown)
            yield from _joined(store, session, auditor, done)
    finally:
        results.close()
    audited.add(auditor.calls, auditor.unknown)  # those it was fed itself
    if rejected is not None:
        rejected.update(auditor.rejected)


def _joined(
    store: EventStore, session: SessionId, auditor: SessionAuditor, done: PartAudit
) -> Iterator[Finding]:
    """One part's items replayed through the session's ``auditor``, then its calls in
    flight carried on."""
    auditor.rejected.update(done.rejected or {})
    for item in done.items:
        if isinstance(item, Finding):
            yield item
        elif isinstance(item, Track):
            auditor.track(item.keys, item.source)
        elif isinstance(item, Sink):
            if auditor.knows(item.keys):
                yield from auditor.flows_of(_event_at(store, session, item.sequence))
        else:
            yield from auditor.feed(_event_at(store, session, item.sequence))
    auditor.carry(done.open)


def _event_at(store: EventStore, session: SessionId, sequence: int) -> StoredEvent:
    stored = first_event(store, session, after=sequence - 1)
    if stored is None or stored.sequence != sequence:
        gone = EventDecodeError(
            source=str(session), line=None, message=f"event {sequence} is gone since it was read"
        )
        raise StoreReadError(gone, sequence=sequence)
    return stored
