"""The benchmark script runs end to end at a tiny size, so it never rots."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from benchmarks.baselines import eventsourcing_replay
from benchmarks.sessions import session

ROOT = Path(__file__).resolve().parent.parent


def test_the_benchmarks_run_and_print_every_row() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks", "--quick"],
        capture_output=True, text=True, cwd=ROOT, timeout=600, check=True,
    )  # fmt: skip
    table = result.stdout
    assert "# machine:" in table
    assert "garbage collector: enabled" in table
    rows = [
        "final-state fold",
        "fold, Retention.all()",
        "10k open",
        "vs eventsourcing replay",
        "memory, final state (no timeline)",
        "memory, Retention.all()",
        "memory, Retention.every(1000)",
        "deepcopy per event",
        "Timeline.at(k), every(1000)",
        "SQLite end-to-end replay",
        "SQLite read and decode only",
        "replay_all, 4 sessions, 2 workers",
        "replay_all + summarize, 2 workers",
        "request validation per call",
        "growth, final-state fold",
        "in-place baseline: time x",
        "gc.collect()",
    ]
    for row in rows:
        assert row in table, row
    assert "Traceback" not in result.stderr


def test_the_eventsourcing_peer_replays_the_session_more_than_once_per_process() -> None:
    events = session(30)
    for _ in range(2):  # eventsourcing refuses a second aggregate class under one topic
        replay = eventsourcing_replay(events)
        assert replay is not None, "eventsourcing is a dev dependency"
        statuses = replay().invocations
        assert len(statuses) == 10
        assert set(statuses.values()) <= {
            "ToolExecutionCompletedEvent",
            "ToolExecutionFailedEvent",
            "ToolExecutionRejectedEvent",
        }
