"""``sessions`` says where an imported session came from: its transcript's format, the
agent's own session id, when it started, the directory it ran in, and whether its
transcript records the times of its steps."""

from __future__ import annotations

import json
from pathlib import Path

from returns.result import Success

from correx_tools import SQLiteEventStore
from correx_tools.shell.transcripts.importing.importing import import_transcripts

from .commands import correx
from .transcript_samples import samples

SAMPLES = samples()
FORMATS = {sample.format for sample in SAMPLES}


def test_every_format_records_what_it_says_of_its_session(tmp_path: Path) -> None:
    dest = tmp_path / "all.sqlite"
    for sample in SAMPLES:
        with SQLiteEventStore(dest) as store:
            for result in import_transcripts(sample.path, store):
                assert isinstance(result, Success), result
    result = correx("sessions", str(dest), "--json", check=True)
    rows = {row["session_id"]: row["transcript"] for row in json.loads(result.stdout)["sessions"]}
    assert rows["019a95d1-3c7e-7b22-a4f0-6e1d2c9b8a53"] == {
        "format": "codex", "agent_session_id": "019a95d1-3c7e-7b22-a4f0-6e1d2c9b8a53",
        "started_at": "2025-11-18T06:42:10.250000Z", "cwd": "/home/yuki/translit-rs",
        "title": None, "times_recorded": True, "outcome": None,
    }  # fmt: skip
    assert rows["ses_4f8e21c07ffdR2kLq9mT3xYb7w"]["title"] == "ή → i の修正"
    assert rows["20251118_3"]["cwd"] == "/home/yuki/translit-rs"  # from the database
    assert rows["1763448130250"]["agent_session_id"] == "1763448130250"  # the task's folder
    assert {row["format"] for row in rows.values()} == FORMATS
    # Bare MCP traffic, Cline's older files and Aider's histories record no time for a step.
    untimed = {session for session, row in rows.items() if not row["times_recorded"]}
    assert untimed == {"traffic-bare", "1763448130251", "synth", "hello-world-flask"}
    text = correx("sessions", str(dest), "--wide", "--tz", "UTC", check=True).stdout
    opencode = next(line for line in text.splitlines() if " opencode " in line)
    shown = ["ses_4f8e21c07ffdR2kLq9mT3xYb7w", "2025-11-18", "06:42", "2025-11-18", "06:42",
             "opencode", "/home/yuki/translit-rs"]  # fmt: skip
    assert opencode.split()[:7] == shown
