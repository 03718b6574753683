"""Hand-made runs of one task for ``compare``: Claude Code transcripts written line by line.

`claude_run` writes the lines a Claude Code session writes for each call (the
assistant's ``tool_use``, then the user's ``tool_result``), with the working
directory every line of a real one carries, so that a test knows exactly where two
runs part.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any, NamedTuple


class Call(NamedTuple):
    tool: str
    arguments: dict[str, Any]
    output: str = "ok"
    error: bool = False
    seconds: float = 1.0


def claude_run(path: Path, session: str, cwd: str, calls: Sequence[Call]) -> Path:
    """Write ``calls`` as a Claude Code transcript of ``session`` run in ``cwd``."""
    at = datetime(2026, 2, 10, 21, 0, tzinfo=UTC)
    lines: list[dict[str, Any]] = []
    parent = None

    def line(kind: str, message: dict[str, Any], when: datetime) -> None:
        nonlocal parent
        uuid = f"{session}-{len(lines):05d}"
        lines.append({
            "parentUuid": parent, "isSidechain": False, "userType": "external", "cwd": cwd,
            "sessionId": session, "version": "2.1.38", "type": kind, "message": message,
            "uuid": uuid, "timestamp": when.isoformat().replace("+00:00", "Z"),
        })  # fmt: skip
        parent = uuid

    line("user", {"role": "user", "content": "fix the failing test"}, at)
    for number, call in enumerate(calls):
        use = f"toolu_{session}_{number:04d}"
        at += timedelta(seconds=1)
        line(
            "assistant",
            {"role": "assistant", "type": "message", "model": "claude-opus-4-6",
             "content": [{"type": "tool_use", "id": use, "name": call.tool,
                          "input": call.arguments}]},
            at,
        )  # fmt: skip
        at += timedelta(seconds=call.seconds)
        line(
            "user",
            {"role": "user", "content": [{"type": "tool_result", "tool_use_id": use,
                                           "content": call.output, "is_error": call.error}]},
            at,
        )  # fmt: skip
    path.write_text("".join(json.dumps(one) + "\n" for one in lines), encoding="utf-8")
    return path
