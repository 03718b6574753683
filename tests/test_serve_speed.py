"""``correx-tools serve``'s benchmark runs at a small size, and what it checks that is not
time holds there.

The benchmark's own rows (``benchmarks/serve.py``) run against a 20,000-event
SQLite session: start-up, every kind of question (its time at p50/p95 and its
largest answer), the process's memory after them, and a session page painted in
Chromium. Time targets are the benchmark's to judge, on a quiet machine (the
million-event numbers are in the performance page); a test running beside
others checks only what load cannot change: every row is measured, no answer is
over its size limit, and the server stays within its memory.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from benchmarks.serve import ANSWER_KB, serve_rows
from benchmarks.sessions import session
from benchmarks.stored import StoredSession
from correx_tools import SessionId, SQLiteEventStore


@pytest.mark.slow  # it runs the server benchmark itself: CI runs it with the slow tests
def test_the_server_benchmark_runs_and_its_answers_stay_small(tmp_path: Path) -> None:
    events = session(20_000)
    path = tmp_path / "bench.sqlite"
    with SQLiteEventStore(path) as store:
        store.import_events(events).unwrap()
    stored = StoredSession(
        "SQLite", str(path), SessionId("bench"), len(events), lambda: store, lambda: 0, lambda: 0
    )
    rows = {row.name.removeprefix("SQLite: "): row for row in serve_rows(stored, questions=25)}
    questions = {name: row for name, row in rows.items() if name.startswith("serve API, ")}
    assert len(questions) >= 8
    for name, row in questions.items():
        measured = re.fullmatch(r"p50 [\d.]+ ms, p95 [\d.]+ ms; largest ([\d,]+) KB", row.ours)
        assert measured is not None, (name, row.ours)
        assert int(measured[1].replace(",", "")) <= ANSWER_KB, (name, row.ours)
    assert rows["serve, resident memory"].met, rows["serve, resident memory"].ours
    assert re.fullmatch(r"listening in [\d.]+ s, .*", rows["correx-tools serve, ready"].ours)
