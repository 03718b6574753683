"""A time no transcript recorded is shown as unknown and left out of every figure, on real
transcripts: Claude Code records the start of a Bash call alone (Read, Glob, Grep and
Task have none), Codex and Goose the start of none; Aider records no time at all.

An import must store a start before a call's end, and stamps the one a transcript does
not record at the call's request time: such a start is no start (`recorded_start`), and
the per-tool figures say how many calls they are of.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

from correx_tools.core.lifecycle.status import ToolInvocationStatus
from correx_tools.core.replay.analytics import ToolStatsBuilder

from .commands import correx

TRANSCRIPTS = Path(__file__).parent / "data" / "transcripts"
CLAUDE = TRANSCRIPTS / "claude-code" / "session_4d5611e5_subagent_a2898e3.jsonl"
CODEX = next((TRANSCRIPTS / "codex").glob("rollout-*.jsonl"))
GOOSE = TRANSCRIPTS / "goose"
AIDER = TRANSCRIPTS / "aider"
READ, BASH = "toolu_01TfDS8U", "toolu_01CWeShc"
MADE_UP = "2000-01-01"
"""Where an import starts the stand-in times of a transcript that records none."""


def answer(*argv: str) -> Any:
    return json.loads(correx(*argv, "--json", check=True).stdout)


def text(*argv: str, columns: int = 120) -> str:
    return correx(*argv, env={"COLUMNS": str(columns)}, check=True).stdout


def test_stats_leave_the_stand_in_starts_out_and_say_how_many_figures_are_of() -> None:
    tools = {t["tool_name"]: t for t in answer("stats", str(CLAUDE), "4d")["tools"]}
    assert tools["Bash"]["queued_seconds"]["calls"] == 5  # every Bash start is recorded
    for name in ("Read", "Glob", "Grep"):
        assert tools[name]["queued_seconds"] == {"p50": None, "p95": None, "max": None,
                                                  "calls": 0}  # fmt: skip
        assert tools[name]["ran_seconds"]["calls"] == 0
        ended = tools[name]["completed"] + tools[name]["failed"]
        assert tools[name]["took_seconds"]["calls"] == ended and ended > 0
    said = text("stats", str(CLAUDE), "4d")
    assert "starts recorded: 5 of 33 calls that ran" in said
    [read] = [line for line in said.splitlines() if line.startswith("Read ")]
    assert "0 s / 0 s / 0 s" not in read


def test_a_transcript_that_records_no_start_shows_no_wait() -> None:
    for source, session in ((CODEX, "019a"), (GOOSE / "20251118_154210.jsonl", "2025")):
        tools = answer("stats", str(source), session)["tools"]
        assert all(t["queued_seconds"]["calls"] == 0 for t in tools)
        said = text("stats", str(source), session)
        assert "the transcript records no start" in said and "queued" not in said


def test_history_and_replay_say_a_start_is_not_recorded() -> None:
    shown = text("history", str(CLAUDE), "4d", READ)
    [row] = [line for line in shown.splitlines() if "STARTED" in line]
    assert row.split()[1:4] == ["not", "recorded", "STARTED"]
    versions = answer("history", str(CLAUDE), "4d", READ)["versions"]
    assert versions[1]["record"]["started_at"] is None
    recorded = answer("history", str(CLAUDE), "4d", BASH)["versions"]
    assert recorded[1]["record"]["started_at"] is not None  # a Bash start is recorded
    calls = answer("replay", str(CLAUDE), "4d", "--limit", "0")["invocations"]
    starts = {c["tool_name"]: c["started_at"] is not None for c in calls}
    assert starts == {"Read": False, "Glob": False, "Grep": False, "Bash": True}


def test_a_session_that_records_no_time_shows_none_anywhere() -> None:
    for argv in (["sessions", str(AIDER)], ["replay", str(AIDER / "synth"), "synth"],
                 ["stats", str(AIDER / "synth"), "synth"],
                 ["history", str(AIDER / "synth"), "synth", "1"]):  # fmt: skip
        said = correx(*argv, "--json")
        assert MADE_UP not in said.stdout, argv
    for row in answer("sessions", str(AIDER))["sessions"]:
        assert row["first_time"] is None and row["last_time"] is None


def test_goose_says_one_start_everywhere() -> None:
    for row in answer("sessions", str(GOOSE))["sessions"]:
        assert row["transcript"]["started_at"] == row["first_time"] is not None


def test_the_builder_takes_a_start_at_the_request_time_of_an_import_for_none() -> None:
    at = datetime(2026, 1, 1, tzinfo=UTC)
    for imported, waited in ((True, 0), (False, 1)):
        builder = ToolStatsBuilder(imported=imported)
        builder.add("Read", ToolInvocationStatus.COMPLETED, at, at, at + timedelta(seconds=2))
        (row,) = builder.stats()
        assert row.queued.calls == row.ran.calls == waited
        assert row.took.calls == 1 and row.took.max == timedelta(seconds=2)
