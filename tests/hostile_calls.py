"""Claude Code sessions of hostile calls, written by the tests that audit them: the agent
writes its own tool inputs, so each test chooses them as an attacker would."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

WORKSPACE = "/home/dev/shop"


def hostile_session(
    path: Path, session: str, calls: Iterable[tuple[str, Mapping[str, Any]]]
) -> Path:
    """A Claude Code transcript at ``path``: a prompt, then each ``(tool, input)`` call asked
    for and answered ``done``, in a session working in `WORKSPACE`. Call ``n`` (from 1) has
    the tool use id ``toolu_NNNN``."""
    base = {"sessionId": session, "cwd": WORKSPACE, "version": "2.1.38"}
    lines = [
        {**base, "type": "user", "uuid": "p", "timestamp": "2026-11-20T10:00:00.000Z",
         "message": {"role": "user", "content": "Please help with the shop."}},
    ]  # fmt: skip
    for n, (tool, arguments) in enumerate(calls, 1):
        use = f"toolu_{n:04d}"
        at = f"2026-11-20T10:{n // 60 % 60:02d}:{n % 60:02d}.000Z"
        lines.append({
            **base, "type": "assistant", "uuid": f"a{n}", "timestamp": at,
            "message": {"role": "assistant", "content": [
                {"type": "tool_use", "id": use, "name": tool, "input": dict(arguments)}]},
        })  # fmt: skip
        lines.append({
            **base, "type": "user", "uuid": f"r{n}", "timestamp": at,
            "message": {"role": "user", "content": [
                {"type": "tool_result", "tool_use_id": use, "content": "done"}]},
        })  # fmt: skip
    with path.open("w", encoding="utf-8") as file:
        for line in lines:
            file.write(json.dumps(line) + "\n")
    return path
