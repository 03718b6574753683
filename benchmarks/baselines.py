"""What the benchmarks compare against, measured in the same run."""

from __future__ import annotations

import copy
import functools
import json
import sqlite3
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from correx_tools import (
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
)

TERMINAL = frozenset({"completed", "failed", "rejected"})


def apply_in_place(records: dict[str, dict[str, Any]], stored: StoredEvent) -> None:
    """One event applied to a dict of mutable records, with the lifecycle's checks."""
    event = stored.event
    kind = type(event)
    if kind is ToolInvocationRequestedEvent:
        if event.invocation_id not in records:  # type: ignore[attr-defined]
            records[event.invocation_id] = {  # type: ignore[attr-defined]
                "status": "requested",
                "tool_name": event.tool_name,  # type: ignore[attr-defined]
                "request": event.request,  # type: ignore[attr-defined]
                "requested_at": stored.recorded_at,
                "completed_at": None,
            }
        return
    record = records.get(event.invocation_id)  # type: ignore[attr-defined]
    if record is None or record["status"] in TERMINAL:
        return
    if kind is ToolExecutionStartedEvent:
        if record["status"] == "requested":
            record["status"] = "started"
            record["started_at"] = stored.recorded_at
        return
    if stored.recorded_at < record["requested_at"]:
        return
    if kind is ToolExecutionCompletedEvent:
        if record["status"] == "started":
            record["status"] = "completed"
            record["receipt"] = event.receipt  # type: ignore[attr-defined]
            record["completed_at"] = stored.recorded_at
    elif kind is ToolExecutionFailedEvent or kind is ToolExecutionRejectedEvent:
        record["status"] = "failed" if kind is ToolExecutionFailedEvent else "rejected"
        record["reason"] = event.reason  # type: ignore[attr-defined]
        record["completed_at"] = stored.recorded_at


def in_place_fold(events: Sequence[StoredEvent]) -> dict[str, dict[str, Any]]:
    """The limit: mutable records updated in place, with the same checks and numbering.

    It keeps the lifecycle rules (unknown ids, order, terminal statuses, time)
    so that the comparison is of data structures, not of work skipped.
    """
    records: dict[str, dict[str, Any]] = {}
    last = 0
    for stored in events:
        if stored.sequence != last + 1:
            raise ValueError(f"gap before sequence {stored.sequence}")
        last = stored.sequence
        apply_in_place(records, stored)
    return records


def deepcopy_snapshots(events: Sequence[StoredEvent]) -> list[dict[str, dict[str, Any]]]:
    """The naive way to keep every state: deep-copy the records after each event."""
    records: dict[str, dict[str, Any]] = {}
    snapshots = []
    for stored in events:
        apply_in_place(records, stored)
        snapshots.append(copy.deepcopy(records))
    return snapshots


def raw_sqlite_loop(path: Path, session_id: str) -> int:
    """The floor for reading SQLite: SELECT the rows and json.loads each one, nothing else."""
    connection = sqlite3.connect(path)
    count = 0
    for _, _, _, _, data in connection.execute(
        "SELECT sequence, recorded_at, type, version, data FROM events WHERE session_id = ? ORDER BY sequence",
        (session_id,),
    ):
        json.loads(data)
        count += 1
    connection.close()
    return count


def eventsourcing_replay(events: Sequence[StoredEvent]) -> Any:
    """The peer: the same session as an ``eventsourcing`` aggregate, reconstructed from
    its in-memory recorder. Returns a function that replays it, or ``None`` if the
    package is not installed (it is the ``bench`` extra)."""
    aggregate_class = _tool_session_class()
    if aggregate_class is None:
        return None
    from eventsourcing.application import Application  # noqa: PLC0415

    application = Application()
    aggregate = aggregate_class()
    for stored in events:
        payload = stored.event
        if isinstance(payload, ToolInvocationRequestedEvent):
            aggregate.requested(payload.invocation_id, payload.tool_name)
        elif isinstance(payload, ToolExecutionStartedEvent):
            aggregate.started(payload.invocation_id)
        else:
            aggregate.ended(payload.invocation_id, type(payload).__name__)  # type: ignore[attr-defined]
    application.save(aggregate)

    def replay() -> Any:
        return application.repository.get(aggregate.id)

    return replay


@functools.cache
def _tool_session_class() -> Any:
    """The aggregate class, defined once: ``eventsourcing`` registers each class under
    its topic (module and qualified name) and refuses a second class with the same one."""
    try:
        from eventsourcing.domain import Aggregate, event  # noqa: PLC0415
    except ImportError:
        return None

    class ToolSession(Aggregate):  # type: ignore[misc]
        def __init__(self) -> None:
            self.invocations: dict[str, str] = {}

        @event("Requested")  # type: ignore[misc]
        def requested(self, invocation_id: str, tool_name: str) -> None:
            self.invocations[invocation_id] = "requested"

        @event("Started")  # type: ignore[misc]
        def started(self, invocation_id: str) -> None:
            self.invocations[invocation_id] = "started"

        @event("Ended")  # type: ignore[misc]
        def ended(self, invocation_id: str, status: str) -> None:
            self.invocations[invocation_id] = status

    return ToolSession
