"""The benchmark script runs end to end at a tiny size, so it never rots."""

from __future__ import annotations

import os
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from benchmarks.baselines import eventsourcing_replay
from benchmarks.page import NOTES, TITLES, load, load_notes, note_for
from benchmarks.run import GROUPS
from benchmarks.sessions import session
from benchmarks.transcript_files import WRITERS

ROOT = Path(__file__).resolve().parent.parent


def _rows() -> dict[str, list[str]]:
    """The rows each group of the table (``--only``) prints."""
    stored = [
        "SQLite append, batches of 1,000, index kept",
        "release 0.2.0's append",
        "PostgreSQL append, batches of 1,000, index kept",
    ]
    for store in ("SQLite", "PostgreSQL", "JSONL"):
        stored.append(f"{store} raw read, compiled parser (the floor)")
    for store in ("SQLite", "PostgreSQL"):
        stored.append(f"{store} full replay to the final state")
        stored.append(f"{store} cold DefaultToolRepository.get")
        for question in ("sessions", "replay --at", "history", "diff"):
            stored.append(f"{store}: correx-tools {question}")
    stored += [
        f"SQLite: serve API, {kind}" for kind in ("state", "history", "diff", "stats", "scrub")
    ]
    stored += ["SQLite: correx-tools serve, ready", "SQLite: serve, resident memory"]
    stored.append("SQLite: one append at the head")
    stored += [
        f"SQLite: correx-tools {command}"
        for command in (
            "stats --json",
            "report",
            "export --to otlp-json -o",
            "verify",
            "reindex",
            "import into a new SQLite file",
        )
    ]
    stored += [
        "SQLite: serve, first paint of a session page",
        "JSONL full replay to the final state",
    ]
    transcripts = [
        "import-transcript (Claude Code), into memory",
        "import-transcript (Claude Code), into SQLite",
    ]
    for name in WRITERS:
        transcripts.append(f"import-transcript ({name}), into memory")
        transcripts.append(f"import-transcript ({name}), growth of the ratio")
    return {
        "startup": [
            "start-up: python -m correx_tools --version",
            "start-up: correx-tools --version",
            "start-up: correx-tools --help",
            "start-up: correx-tools sessions TRANSCRIPT",
            "start-up: correx-tools replay TRANSCRIPT SESSION",
        ],
        "folds": [
            "final-state fold",
            "fold, Retention.all()",
            "10k open",
            "vs eventsourcing replay",
            "memory, final state (no timeline)",
            "memory, Retention.all()",
            "memory, Retention.every(1000), over the final state",
            "deepcopy per event",
            "Timeline.at(k), every(1000)",
            "final-state fold, ends in thirds",
            "fold, Retention.all(), ends in thirds",
            "fold, Retention.all(), ends in thirds, over the tuple loop",
            "request validation per call",
            "growth, final-state fold, over the baseline's",
            "in-place baseline: time x",
            "gc.collect()",
        ],
        "masking": [
            "masking, 'token' * n",
            "masking, '-----BEGIN PRIVATE KEY-----' * n",
            "masking, 'password=' * n",
            "masking, 'a' * n",
            "masking, the worst keyword of",
            "masking, nothing but findings",
        ],
        "stored": stored,
        "seals": [
            "SQLite read of a stale index: each event held to its chain",
            "SQLite conversation read: each event held to its chain",
        ],
        "parallel": ["replay_all, 4 sessions, 2 workers", "replay_all + summarize, 2 workers"],
        "transcripts": transcripts,
        "sources": [
            "transcripts as SOURCE: first open (cache filled)",
            "transcripts as SOURCE: second open, nothing changed (replay --at 1)",
            "transcripts as SOURCE: sessions FOLDER, nothing changed",
            "serve: 1,000 lines appended to a live file reach the page",
        ],
        "compare": ["compare, two sessions of one task", "compare, two sessions, resident memory"],
        "audit": [
            "audit, one session, the built-in policy",
            "audit, one session, resident memory",
            "audit, one transcript with a huge output, resident memory",
        ],
        "many": [
            "many sessions: first page of sessions, warm",
            "many sessions: usage --by day, warm",
            "many sessions: first fill vs ccusage daily",
        ],
        "catalog": [
            f"{store} catalog: {row}"
            for store in ("SQLite", "PostgreSQL")
            for row in (
                "sessions first page, no filter",
                "sessions first page, --project",
                "usage --by day, everything",
                "search, a word drawn from the data",
                "search, a phrase drawn from the data",
                "serve API, the list, first page",
                "serve API, usage by day, stacked by project",
                "full-text index size",
                "full-text index upkeep (import)",
            )
        ],
        "team": [
            "team push: 3 machines at once, over a COPY of the same rows",
            "team push: a re-push of an unchanged machine",
            "team push: a re-push of an unchanged folder of transcripts",
            "team export --to parquet --events, over reading the rows",
            "team export: Parquet files over the events table",
            "team push: each pusher's peak memory",
            "team export: peak memory",
            "team push --follow: the slowest batch written until it is in the team's store",
            "team push --follow: peak memory after the last batch, over after the first",
        ],
    }


ROWS = _rows()


def test_every_group_of_the_table_is_run_here() -> None:
    assert tuple(ROWS) == GROUPS


# Each group on its own (``--only``), so that the groups share out the test workers.
@pytest.mark.slow  # the whole script, every row, at tiny sizes: a minute or two of CPU
@pytest.mark.parametrize("group", GROUPS)
def test_the_benchmarks_run_print_every_row_and_write_the_page(
    group: str, postgres_dsn: str, tmp_path: Path
) -> None:
    results, page = tmp_path / "results.json", tmp_path / "performance.md"
    command = ["--quick", "--only", group, "--record", "--results", str(results),
               "--page", str(page)]  # fmt: skip
    result = subprocess.run(
        [sys.executable, "-m", "benchmarks", *command],
        capture_output=True, text=True, cwd=ROOT, timeout=600, check=True,
        env={**os.environ, "CORREX_BENCH_POSTGRES_DSN": postgres_dsn},
    )  # fmt: skip
    table = result.stdout
    assert "# machine:" in table
    assert "garbage collector: enabled" in table
    for row in ROWS[group]:
        assert row in table, row
    assert "Traceback" not in result.stderr
    # The run is recorded where it was told, and the page written from it names every row's
    # issue: a new row without a note in benchmarks/notes.toml fails here.
    recorded, notes = load(results), load_notes(NOTES)
    assert [run.command for run in recorded.runs] == [
        shlex.join(["python", "-m", "benchmarks", *command])
    ]
    assert {r.group for r in recorded.rows} == {group}
    for row in recorded.rows:
        assert note_for(row.row.name, notes) is not None, row.row.name
    assert f"### {TITLES[group]}" in page.read_text(encoding="utf-8")


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
