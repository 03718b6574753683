"""What the benchmarks compare against, measured in the same run."""

from __future__ import annotations

import copy
import functools
import hashlib
import json
import sqlite3
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import msgspec

from correx_tools import (
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
)
from correx_tools.shell.stores.codec.envelope import (
    MAX_EVENT_BYTES,
    event_payload,
    format_timestamp,
)
from correx_tools.shell.stores.codec.strict_json import canonical_json

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


def decoded_tuples(events: Sequence[StoredEvent]) -> list[tuple[int, str, Any, Any]]:
    """Each event as ``(kind, invocation id, recorded_at, detail)``: what a tight loop takes."""
    kinds = {
        ToolInvocationRequestedEvent: 0,
        ToolExecutionStartedEvent: 1,
        ToolExecutionCompletedEvent: 2,
        ToolExecutionFailedEvent: 3,
        ToolExecutionRejectedEvent: 4,
    }
    tuples = []
    for stored in events:
        event: Any = stored.event
        kind = kinds[type(event)]
        detail = (
            event.request
            if kind == 0
            else event.receipt
            if kind == 2
            else getattr(event, "reason", None)
        )
        tuples.append((kind, event.invocation_id, stored.recorded_at, detail))
    return tuples


def tuple_loop(tuples: Sequence[tuple[int, str, Any, Any]]) -> dict[str, list[Any]]:
    """The tightest Python fold: pre-decoded tuples into mutable lists, in place, with the
    lifecycle's checks (unknown ids, order, ended calls, time) and nothing else."""
    records: dict[str, list[Any]] = {}
    for kind, invocation, at, detail in tuples:
        record = records.get(invocation)
        if kind == 0:
            if record is None:
                records[invocation] = [0, detail, at, None, None]
        elif record is None or record[0] > 1:
            continue
        elif kind == 1:
            if record[0] == 0:
                record[0] = 1
        elif at >= record[2] and (kind != 2 or record[0] == 1):
            record[0], record[3], record[4] = kind, at, detail
    return records


Parse = Callable[[str | bytes], object]
"""What a raw loop parses each row's JSON with: ``json.loads``, or the compiled parser."""

compiled_loads: Parse = msgspec.json.Decoder().decode
"""The compiled parser the stores read with (msgspec), with none of their checks: the floor
under the floor, beside ``json.loads``."""


def raw_sqlite_loop(path: Path, session_id: str, parse: Parse = json.loads) -> int:
    """The floor for reading SQLite: SELECT the rows and parse each one, nothing else."""
    connection = sqlite3.connect(path)
    count = 0
    for _, _, _, _, data in connection.execute(
        "SELECT sequence, recorded_at, type, version, data FROM events WHERE session_id = ? ORDER BY sequence",
        (session_id,),
    ):
        parse(data)
        count += 1
    connection.close()
    return count


def raw_jsonl_loop(path: Path, parse: Parse = json.loads) -> int:
    """The floor for reading a JSONL log: each line parsed, nothing else."""
    count = 0
    with path.open("rb") as lines:
        for line in lines:
            parse(line)
            count += 1
    return count


def raw_postgres_loop(
    dsn: str, schema: str, session_id: str, batch: int, parse: Parse = json.loads
) -> int:
    """The floor for reading PostgreSQL: the rows fetched in keyset batches of ``batch``, as
    the store fetches them, and each one's data parsed, nothing else."""
    import psycopg  # noqa: PLC0415 - the postgres extra

    key = hashlib.sha256(session_id.encode("utf-8")).digest()
    query = (
        f"SELECT sequence, recorded_at, type, version, data FROM {schema}.correx_events "
        "WHERE session_key = %s AND sequence > %s ORDER BY sequence LIMIT %s"
    )
    count, last = 0, 0
    with psycopg.connect(dsn, autocommit=True) as connection:
        while True:
            rows = connection.execute(query, (key, last, batch)).fetchall()
            for row in rows:
                parse(row[4])
            count += len(rows)
            if len(rows) < batch:
                return count
            last = rows[-1][0]


LEGACY_TABLES = (
    """CREATE TABLE IF NOT EXISTS events (
        position INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT NOT NULL,
        sequence INTEGER NOT NULL CHECK (sequence >= 1), recorded_at TEXT NOT NULL,
        type TEXT NOT NULL, version INTEGER NOT NULL, data TEXT NOT NULL,
        UNIQUE (session_id, sequence))""",
    """CREATE TABLE IF NOT EXISTS invocations (
        invocation_id TEXT PRIMARY KEY, session_id TEXT NOT NULL, sequence INTEGER NOT NULL)""",
)


def legacy_sqlite_append(
    path: Path, session_id: str, payloads: Sequence[object], batch: int
) -> None:
    """Release 0.2.0's SQLite append, step for step: its tables (no time-travel index), each
    batch stamped with the clock, encoded to canonical JSON and size-checked, then in one
    ``BEGIN IMMEDIATE`` transaction the last sequence checked, each request's id claimed
    and the events inserted. The "today" of the append target."""
    connection = sqlite3.connect(path, isolation_level=None)
    connection.execute("PRAGMA journal_mode=WAL")
    connection.execute("PRAGMA synchronous=FULL")
    for statement in LEGACY_TABLES:
        connection.execute(statement)
    for start in range(0, len(payloads), batch):
        now = format_timestamp(datetime.now(UTC))
        rows, claims = [], []
        for sequence, payload in enumerate(payloads[start : start + batch], start=start + 1):
            type_tag, version, data = event_payload(payload)
            text = canonical_json(data)
            if len(text.encode("utf-8")) > MAX_EVENT_BYTES:
                raise ValueError(f"sequence {sequence} is too large")
            rows.append((session_id, sequence, now, type_tag, version, text))
            if type(payload) is ToolInvocationRequestedEvent:
                claims.append((payload.invocation_id, session_id, sequence))
        cursor = connection.cursor()
        cursor.execute("BEGIN IMMEDIATE")
        (last,) = cursor.execute(
            "SELECT MAX(sequence) FROM events WHERE session_id = ?", (session_id,)
        ).fetchone()
        if (last or 0) != start:
            raise RuntimeError(f"expected sequence {start}, found {last}")
        for claim in claims:
            cursor.execute(
                "INSERT INTO invocations (invocation_id, session_id, sequence) VALUES (?, ?, ?)",
                claim,
            )
        cursor.executemany(
            "INSERT INTO events (session_id, sequence, recorded_at, type, version, data) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            rows,
        )
        cursor.execute("COMMIT")
    connection.close()


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
