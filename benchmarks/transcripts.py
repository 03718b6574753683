"""Rows for importing a transcript: a Claude Code session file of many tool calls."""

from __future__ import annotations

import json
from datetime import timedelta
from pathlib import Path

from correx_tools import InMemoryEventStore, SQLiteEventStore, import_transcript

from .baselines import raw_jsonl_loop
from .sessions import START
from .table import Row, at_most, rate, timed


def claude_code_file(path: Path, calls: int) -> Path:
    """A Claude Code session file of ``calls`` tool calls: each an assistant record asking for
    a Read, and a user record with its result (one in ten an error)."""
    with path.open("w", encoding="utf-8") as out:
        for number in range(calls):
            at = START + timedelta(seconds=number)
            call = f"toolu_{number:08d}"
            base = {"sessionId": "bench-session", "cwd": "/repo", "version": "2.1.38"}
            out.write(json.dumps({
                **base, "type": "assistant", "uuid": f"a{number}",
                "timestamp": at.isoformat().replace("+00:00", "Z"),
                "message": {"role": "assistant", "content": [
                    {"type": "tool_use", "id": call, "name": "Read",
                     "input": {"file_path": f"/repo/src/module_{number % 50}.py"}}]},
            }) + "\n")  # fmt: skip
            out.write(json.dumps({
                **base, "type": "user", "uuid": f"u{number}",
                "timestamp": (at + timedelta(milliseconds=300)).isoformat().replace("+00:00", "Z"),
                "message": {"role": "user", "content": [
                    {"type": "tool_result", "tool_use_id": call, "is_error": number % 10 == 7,
                     "content": "File does not exist." if number % 10 == 7 else "x = 1\n" * 20}]},
            }) + "\n")  # fmt: skip
    return path


def transcript_rows(calls: int, directory: Path) -> list[Row]:
    """Importing the file into memory (against the floor) and into a new SQLite file."""
    path = claude_code_file(directory / "transcript.jsonl", calls)
    raw = timed(lambda: raw_jsonl_loop(path), 3)
    in_memory = timed(lambda: import_transcript(path, InMemoryEventStore()).unwrap(), 3)

    def into_sqlite() -> None:
        target = directory / "transcript.sqlite"
        for leftover in directory.glob("transcript.sqlite*"):
            leftover.unlink()
        with SQLiteEventStore(target) as store:
            import_transcript(path, store).unwrap()

    sqlite = timed(into_sqlite, 1)
    events = calls * 3
    size = f"{calls:,} calls"
    return [
        at_most(
            "import-transcript (Claude Code), into memory",
            size,
            rate(events, in_memory),
            f"{raw:.2f} s reading the lines + json.loads",
            ratio=in_memory / raw,
            limit=2.0,
        ),
        Row(
            "import-transcript (Claude Code), into SQLite",
            size,
            rate(events, sqlite),
            f"{raw:.2f} s reading the lines + json.loads",
            sqlite / raw,
            "-",
            None,
        ),
    ]
