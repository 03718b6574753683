"""Eight processes appending to one SQLite file: no duplicates, no gaps, no torn batch.

Every worker appends 200 times to one shared session (optimistic
concurrency: read the last sequence, append after it, retry on conflict),
alternating single events and three-event batches. A lock held too long
surfaces as a ``BUSY`` error that says to retry, and it writes nothing.
"""

from __future__ import annotations

import multiprocessing
import sqlite3
from collections import defaultdict
from pathlib import Path

from returns.result import Failure

from correx_tools import AppendErrorKind, SessionId, SQLiteEventStore, ToolInvocationRequestedEvent

from .strategies import completed, requested, started

SHARED = SessionId("shared")
WORKERS, APPENDS = 8, 200


def _append_many(path: str, worker: int) -> tuple[int, int, int]:
    """(attempts, conflicts, busy) of ``APPENDS`` successful appends."""
    attempts = conflicts = busy = 0
    with SQLiteEventStore(path) as store:
        for i in range(APPENDS):
            name = f"w{worker}-{i}"
            batch = (
                [requested(name)] if i % 2 else [requested(name), started(name), completed(name)]
            )
            while True:
                attempts += 1
                result = store.append(SHARED, batch, expected_sequence=store.last_sequence(SHARED))
                if not isinstance(result, Failure):
                    break
                error = result.failure()
                if error.kind is AppendErrorKind.CONFLICT:
                    conflicts += 1
                elif error.kind is AppendErrorKind.BUSY:
                    assert "retry" in error.message
                    busy += 1
                else:
                    raise AssertionError(error.message)
    return attempts, conflicts, busy


def test_eight_processes_lose_and_duplicate_nothing(tmp_path: Path) -> None:
    path = tmp_path / "shared.sqlite"
    SQLiteEventStore(path).close()  # tables first
    context = multiprocessing.get_context("spawn")
    with context.Pool(WORKERS) as pool:
        counts = pool.starmap(_append_many, [(str(path), w) for w in range(WORKERS)])
    attempts = sum(c[0] for c in counts)
    busy = sum(c[2] for c in counts)
    assert busy <= attempts // 100, counts
    with SQLiteEventStore(path) as store:
        events = list(store.read(SHARED))
    total = WORKERS * APPENDS // 2 * 4  # half single events, half batches of three
    assert [e.sequence for e in events] == list(range(1, total + 1))
    requested_ids = [
        e.event.invocation_id for e in events if isinstance(e.event, ToolInvocationRequestedEvent)
    ]
    assert len(requested_ids) == len(set(requested_ids)) == WORKERS * APPENDS
    # A batch is never split: each three-event batch sits at consecutive sequences.
    where: defaultdict[str, list[int]] = defaultdict(list)
    for stored in events:
        where[stored.event.invocation_id].append(stored.sequence)  # type: ignore[attr-defined]
    for name, sequences in where.items():
        if int(name.rsplit("-", 1)[1]) % 2 == 0:
            assert sequences == list(range(sequences[0], sequences[0] + 3)), name
        else:
            assert len(sequences) == 1, name
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
    duplicates = connection.execute(
        "SELECT COUNT(*) FROM "
        "(SELECT 1 FROM events GROUP BY session_id, sequence HAVING COUNT(*) > 1)"
    ).fetchone()
    connection.close()
    assert duplicates == (0,)


def test_a_lock_held_too_long_is_a_clear_retriable_error_that_writes_nothing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "locked.sqlite"
    with SQLiteEventStore(path, busy_timeout=0.05) as store:
        store.append(SHARED, [requested("a")], expected_sequence=0).unwrap()
        holder = sqlite3.connect(path, isolation_level=None)
        holder.execute("BEGIN IMMEDIATE")
        error = store.append(SHARED, [started("a"), completed("a")], expected_sequence=1).failure()
        assert error.kind is AppendErrorKind.BUSY
        assert error.session_id == SHARED  # named, though no lock on it was taken
        assert "retry" in error.message
        assert str(path) in error.message
        holder.execute("ROLLBACK")
        holder.close()
        assert store.count() == 1
        assert store.append(SHARED, [started("a"), completed("a")], expected_sequence=1).unwrap()
        assert store.count() == 3
