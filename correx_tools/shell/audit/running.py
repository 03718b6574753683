"""A store's sessions audited: each read once, in order, through the rules.

Nothing of a session is held but what the auditor keeps (its calls in flight and its
bounded flow set) and the session's findings: the events are read as the store streams them
and let go. A session's findings are given once its events are read, each call's as it
ended: a call rejected before it ran is an attempt (`as_ended`). A database's large session
is audited in parts by worker processes at once (`parts`), with the one pass's findings in
the one pass's order.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterator, Mapping, Sequence

from ...core.audit.auditor import as_ended
from ...core.audit.finding import Finding
from ...core.audit.policy import CompiledPolicy
from ...core.tools.capability import ToolCapability
from ...core.tools.ids import SessionId
from ..stores.fanout import Workers
from ..stores.port import EventStore, LocatedStore, session_events
from ..stores.sql.store import SqlEventStore
from .audited import Audited
from .parts import PART_EVENTS, audit_in_parts, audit_task, session_auditor

__all__ = ["Audited", "audit_store"]


def audit_store(
    store: EventStore,
    policy: CompiledPolicy,
    sessions: Sequence[SessionId] | None = None,
    *,
    audited: Audited | None = None,
    declared: Mapping[str, frozenset[ToolCapability]] | None = None,
    workers: int = 1,
    part_events: int = PART_EVENTS,
) -> Iterator[Finding]:
    """Every finding of ``sessions`` (all the store's if ``None``), session by session, each
    session's once its events are read; ``audited`` is filled in as they are read. A
    database's session of at least twice ``part_events`` events is audited in parts,
    ``workers`` processes at once (this one joining them), with the same findings in the
    same order; `WorkerLost`
    if one of them dies."""
    seen = audited if audited is not None else Audited()
    runner = (
        Workers(store.address, workers)
        if workers > 1 and isinstance(store, SqlEventStore) and isinstance(store, LocatedStore)
        else None
    )
    try:
        for session in store.sessions() if sessions is None else sessions:
            seen.sessions += 1
            yield from _session(
                store, session, policy, declared=declared, runner=runner, audited=seen,
                part_events=part_events,
            )  # fmt: skip
    finally:
        if runner is not None:
            runner.close()


def _session(
    store: EventStore,
    session: SessionId,
    policy: CompiledPolicy,
    *,
    declared: Mapping[str, frozenset[ToolCapability]] | None,
    runner: Workers | None,
    audited: Audited,
    part_events: int,
) -> Iterator[Finding]:
    found: list[Finding] = []
    with session_events(store, session) as events:
        first = next(events, None)
        if first is None:
            return
        task = audit_task(policy, first, declared)
        large = isinstance(store, SqlEventStore) and store.last_sequence(session) >= 2 * part_events
        if runner is None or not large:
            auditor = session_auditor(
                session, policy, format=task.format, workspace=task.workspace, declared=declared
            )
            for stored in itertools.chain((first,), events):
                audited.events += 1
                found += auditor.feed(stored)
            audited.add(auditor.calls, auditor.unknown)
            yield from as_ended(found, auditor.rejected)
            return
    assert isinstance(store, SqlEventStore)  # `large`
    rejected: dict[int, str] = {}
    found += audit_in_parts(
        store, session, task, runner, audited, part_events=part_events, rejected=rejected
    )
    yield from as_ended(found, rejected)
