"""Rows for importing a transcript: a Claude Code session file of many tool calls, and a
file of each other format the importer reads (`transcript_files`), at two sizes."""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable
from datetime import timedelta
from pathlib import Path

from correx_tools import InMemoryEventStore, SQLiteEventStore, import_transcript
from correx_tools.shell.transcripts.importing.importing import import_transcripts

from .baselines import raw_jsonl_loop
from .sessions import START
from .table import Row, at_most, rate, timed
from .transcript_files import WRITERS

TARGET = 25.0
"""The transcript target: an import within 25x json.loads of the same file."""
GROWTH = 1.5
"""How much that ratio may grow from the small file to the large one and still be called
linear: the collector walks a heap that grows with the file, so it does grow a little."""


def claude_code_file(path: Path, calls: int) -> Path:
    """A Claude Code session file of ``calls`` tool calls: each an assistant record asking for
    a Read, with its message's model and usage (one in ten with a line of text before it),
    and a user record with its result (one in ten an error); a prompt every 50 calls."""
    with path.open("w", encoding="utf-8") as out:
        for number in range(calls):
            at = START + timedelta(seconds=number)
            stamp = at.isoformat().replace("+00:00", "Z")
            call = f"toolu_{number:08d}"
            base = {"sessionId": "bench-session", "cwd": "/repo", "version": "2.1.38"}
            if number % 50 == 0:
                out.write(json.dumps({
                    **base, "type": "user", "uuid": f"p{number}", "timestamp": stamp,
                    "message": {"role": "user", "content": f"read module {number % 50} again"},
                }) + "\n")  # fmt: skip
            said = [{"type": "text", "text": "Let me read the module."}] if number % 10 == 0 else []
            usage = {"input_tokens": 3, "output_tokens": 25, "cache_read_input_tokens": 60_000,
                     "cache_creation_input_tokens": 200}  # fmt: skip
            out.write(json.dumps({
                **base, "type": "assistant", "uuid": f"a{number}", "timestamp": stamp,
                "message": {"role": "assistant", "id": f"msg_{number:08d}",
                            "model": "claude-sonnet-4-5", "usage": usage, "content": [
                    *said,
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
    events = calls * 3 + calls + calls // 10 + (calls + 49) // 50  # calls, usage, words, prompts
    size = f"{calls:,} calls"
    return [
        at_most(
            "import-transcript (Claude Code), into memory",
            size,
            rate(events, in_memory),
            f"{raw:.2f} s reading the lines + json.loads",
            ratio=in_memory / raw,
            limit=TARGET,
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


def format_rows(small: int, large: int, directory: Path) -> list[Row]:
    """Each other format's import into memory at ``large`` lines against json.loads of the
    same file, and how that ratio grows from ``small`` lines."""
    rows: list[Row] = []
    for name, (file_name, write) in WRITERS.items():
        ratios = {}
        for lines in (small, large):
            path = write(directory / file_name, lines)
            floor, floor_text = _floor(path)
            raw = timed(floor, 3)
            counted: list[int] = []
            repeat = 3 if lines == small else 1  # a large file is minutes: once is enough
            ours = timed(lambda path=path, counted=counted: counted.append(_import(path)), repeat)
            ratios[lines] = ours / raw
            path.unlink()
        rows.append(
            at_most(
                f"import-transcript ({name}), into memory",
                f"{large:,} lines",
                rate(counted[-1], ours),
                f"{raw:.2f} s {floor_text}",
                ratio=ratios[large],
                limit=TARGET,
            )
        )
        rows.append(
            at_most(
                f"import-transcript ({name}), growth of the ratio",
                f"{small:,} -> {large:,} lines",
                f"{ratios[small]:.1f}x -> {ratios[large]:.1f}x",
                "json.loads of each file",
                ratio=ratios[large] / ratios[small],
                limit=GROWTH,
            )
        )
    return rows


def _import(path: Path) -> int:
    """Import every session of the file into a new in-memory store; the events written."""
    return sum(result.unwrap().events for result in import_transcripts(path, InMemoryEventStore()))


def _floor(path: Path) -> tuple[Callable[[], object], str]:
    """The floor for reading the file, and how the table says it."""
    if path.suffix == ".jsonl":
        return (lambda: raw_jsonl_loop(path)), "reading the lines + json.loads"
    if path.suffix == ".json":
        return (lambda: json.loads(path.read_bytes())), "json.loads of the file"
    if path.suffix == ".db":
        return (lambda: _rows_loop(path)), "reading the rows + json.loads"
    # Markdown holds no JSON: the floor is json.loads of the same lines as JSON strings.
    encoded = [json.dumps(line) for line in path.read_text(encoding="utf-8").splitlines()]
    return (lambda: [json.loads(line) for line in encoded]), "json.loads of its lines as strings"


def _rows_loop(path: Path) -> int:
    """The floor for a Goose database: each message row's content through json.loads."""
    connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    try:
        rows = connection.execute("SELECT content_json FROM messages ORDER BY id")
        return sum(1 for (text,) in rows if json.loads(text) is not None)
    finally:
        connection.close()
