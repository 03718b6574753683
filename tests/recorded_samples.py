"""Copies of the real samples with what the views must not hide: a command that exited
non-zero, and an output too large to store.

The Claude Code subagent's sample (``data/transcripts/claude-code``, see its
PROVENANCE.txt) is written here as Claude Code writes those two things: its ``find``
over a missing folder answered with ``Exit code 1`` on the first line and
``is_error`` left false, and its ``ls -la`` grown to 1.5 MiB of listing, as a
command that prints that much makes it.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from .transcript_samples import DATA

CLAUDE = DATA / "claude-code" / "session_4d5611e5_subagent_a2898e3.jsonl"
CLAUDE_SESSION = "4d5611e5-241a-462a-8d15-5122611a9569/agent-a2898e3"
FIND = "toolu_01QXjwuWbVymGYd1Q7PYcx2w"
"""A Bash ``find`` over a folder that is not there: here it says ``Exit code 1``."""
LS = "toolu_01JxLEUFpw8qHK2VUyMpzUrs"
"""The ``ls -la`` whose result is grown past what an event may hold."""
READ = "toolu_01HaEX6WGRyK8yccb6knr31H"
"""A Read: its transcript states no exit code."""
SIZE = 3 * (1 << 19)  # 1.5 MiB


def _grown(text: str) -> str:
    line = "-rw-rw-r--  1 marco marco  4096 Feb 12 16:59 résumé-ファイル.txt\n"
    body = text + "\n" + line * (SIZE // len(line.encode()))
    return body + "x" * (SIZE - len(body.encode()))


def exited_and_cut(path: Path) -> Path:
    """The Claude Code sample with the two changes, written to ``path``."""
    records = [json.loads(line) for line in CLAUDE.read_text(encoding="utf-8").splitlines()]
    for record in records:
        for block in _blocks(record):
            if block.get("tool_use_id") == FIND:
                assert block["is_error"] is False
                block["content"] = "Exit code 1\n" + block["content"]
            elif block.get("tool_use_id") == LS:
                block["content"] = _grown(str(block["content"]))
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


def _blocks(record: dict[str, Any]) -> list[dict[str, Any]]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []
