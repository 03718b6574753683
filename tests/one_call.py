"""A Claude Code session of one call, written by hand for the tests that need its tokens or
its tool to be exactly what they say (a ceiling on a count, a rewrite in place)."""

from __future__ import annotations

import json
from pathlib import Path


def one_call_session(path: Path, session: str, *, tool: str = "Read", tokens: int = 100) -> Path:
    """Six events: the prompt ``use TOOL``, a message that spent ``tokens`` input tokens
    asking for one ``tool`` call, and its result."""
    base = {"sessionId": session, "cwd": "/repo", "version": "2.1.38"}
    records = [
        {**base, "type": "user", "uuid": "p", "timestamp": "2026-01-01T00:00:00Z",
         "message": {"role": "user", "content": f"use {tool}"}},
        {**base, "type": "assistant", "uuid": "a", "timestamp": "2026-01-01T00:00:01Z",
         "message": {"role": "assistant", "id": "m1", "model": "claude-sonnet-4-5",
                     "usage": {"input_tokens": tokens, "output_tokens": 5},
                     "content": [{"type": "tool_use", "id": "t1", "name": tool,
                                  "input": {"file_path": "/repo/a.py"}}]}},
        {**base, "type": "user", "uuid": "u", "timestamp": "2026-01-01T00:00:02Z",
         "message": {"role": "user",
                     "content": [{"type": "tool_result", "tool_use_id": "t1", "content": "x"}]}},
    ]  # fmt: skip
    path.write_text("".join(json.dumps(record) + "\n" for record in records), encoding="utf-8")
    return path
