"""Eight processes recording overlapping lifecycles on one session never write an illegal
or duplicated history: on one SQLite file, and on the real PostgreSQL server.

Every worker walks the same shared invocations in the same order, racing the
others for each step (the request, the start, the end: completed, failed or
rejected by turns), and runs a few calls of its own in between. Whatever the
interleaving, each event some worker was told it recorded is in the store
exactly once, nothing else is, and the session replays strictly.
"""

from __future__ import annotations

import multiprocessing
import uuid
from collections import Counter
from pathlib import Path

import pytest
from returns.result import Success

from correx_tools import (
    DefaultToolRepository,
    EventReplayer,
    EventStore,
    InvocationId,
    PostgresEventStore,
    RecordErrorKind,
    SessionId,
    SessionRecorder,
    SQLiteEventStore,
    Tier,
    ToolProjector,
    ToolReceipt,
    ToolRequest,
    ToolSuccess,
)

SHARED = SessionId("shared")
WORKERS, CALLS, OWN = 8, 25, 5
REQUEST = ToolRequest(tool_name="read_file", arguments={"path": "README.md"})


class Reader:
    def execute(self, invocation_id: InvocationId, request: ToolRequest) -> ToolSuccess:
        return ToolSuccess(invocation_id=invocation_id, output={"bytes": 12})


def open_store(kind: str, where: str, schema: str) -> EventStore:
    if kind == "sqlite":
        return SQLiteEventStore(where)
    return PostgresEventStore(where, schema=schema)


def record(kind: str, where: str, schema: str, worker: int) -> tuple[list[int], Counter[str]]:
    """The sequences this worker recorded, and how many steps were refused, by kind."""
    store = open_store(kind, where, schema)
    recorder = SessionRecorder(store, SHARED)
    mine: list[int] = []
    refused: Counter[str] = Counter()

    def keep(result: object) -> None:
        if isinstance(result, Success):
            mine.append(result.unwrap().sequence)
        else:
            refused[result.failure().kind.value] += 1  # type: ignore[attr-defined]

    for number in range(CALLS):
        call = InvocationId(f"shared-{number}")
        keep(recorder.request(call, REQUEST, tier=Tier.AUTO))
        keep(recorder.start(call))
        match (number + worker) % 3:
            case 0:
                keep(recorder.complete(call, ToolReceipt(output={"by": worker})))
            case 1:
                keep(recorder.fail(call, f"worker {worker} saw it fail", recoverable=True))
            case _:
                keep(recorder.reject(call, f"worker {worker} declined"))
        if number % (CALLS // OWN) == 0:
            own = recorder.run(
                InvocationId(f"w{worker}-{number}"), REQUEST, Reader(), tier=Tier.AUTO
            )
            if isinstance(own, Success):
                mine.extend(stored.sequence for stored in own.unwrap().events)
            else:
                refused[own.failure().kind.value] += 1
                refused["own run"] += 1
                mine.extend(stored.sequence for stored in own.failure().recorded)
    getattr(store, "close", lambda: None)()
    return mine, refused


def check(store: EventStore, results: list[tuple[list[int], Counter[str]]]) -> None:
    recorded = sorted(sequence for mine, _ in results for sequence in mine)
    events = list(store.read(SHARED))
    # Every acknowledged event is there once, and nothing was written unacknowledged.
    assert recorded == [stored.sequence for stored in events] == list(range(1, len(events) + 1))
    replay = EventReplayer(store).replay(SHARED, ToolProjector()).unwrap()  # strictly legal
    assert DefaultToolRepository(EventReplayer(store)).check_unique_invocations() == Success(None)
    shared = [r for r in replay.state.records() if r.invocation_id.startswith("shared-")]
    assert len(shared) == CALLS
    assert all(record.status.value in {"completed", "failed", "rejected"} for record in shared)
    refusals: Counter[str] = sum((refused for _, refused in results), Counter())
    own = Counter(
        r.status.value for r in replay.state.records() if not r.invocation_id.startswith("shared-")
    )
    # A run another writer kept beating (CONFLICT, after every retry) stops where it was.
    assert set(own) <= {"requested", "started", "completed"}
    assert own["completed"] == WORKERS * OWN - refusals["own run"]
    # Seven of eight racers lose each shared step, and are told so.
    assert refusals[RecordErrorKind.ILLEGAL.value] >= (WORKERS - 1) * CALLS
    assert set(refusals) <= {
        RecordErrorKind.ILLEGAL.value,
        RecordErrorKind.CONFLICT.value,
        "own run",
    }
    assert refusals[RecordErrorKind.CONFLICT.value] <= WORKERS * (3 * CALLS + 3 * OWN) // 20


def race(kind: str, where: str, schema: str) -> list[tuple[list[int], Counter[str]]]:
    context = multiprocessing.get_context("spawn")
    with context.Pool(WORKERS) as pool:
        return pool.starmap(record, [(kind, where, schema, w) for w in range(WORKERS)])


def test_eight_processes_record_one_legal_history_in_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    SQLiteEventStore(path).close()
    results = race("sqlite", str(path), "")
    with SQLiteEventStore(path) as store:
        check(store, results)


@pytest.mark.usefixtures("postgres_dsn")
def test_eight_processes_record_one_legal_history_in_postgres(postgres_dsn: str) -> None:
    schema = f"t_{uuid.uuid4().hex[:16]}"
    PostgresEventStore(postgres_dsn, schema=schema).close()
    try:
        results = race("postgres", postgres_dsn, schema)
        with PostgresEventStore(postgres_dsn, schema=schema) as store:
            check(store, results)
    finally:
        import psycopg  # noqa: PLC0415 - only this test needs it

        with psycopg.connect(postgres_dsn, autocommit=True) as connection:
            connection.execute(f'DROP SCHEMA "{schema}" CASCADE')
