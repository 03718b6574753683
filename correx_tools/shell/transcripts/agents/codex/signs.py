"""What an OpenAI Codex CLI rollout looks like: the light test recognising tries on a JSON
Lines file's first records, kept apart from the reader (`calls`), which is imported only
when a rollout is read."""

from __future__ import annotations

from typing import Any

from ...common.lines import first_record

FORMAT = "codex"
EXPECTED = "OpenAI Codex CLI rollout JSON Lines, its first record a session_meta"


def looks_like(records: list[tuple[int, Any]]) -> bool:
    """Whether JSON Lines records are a Codex rollout: the first is a ``session_meta``."""
    first = first_record(records)
    return (
        first is not None
        and first.get("type") == "session_meta"
        and isinstance(first.get("payload"), dict)
    )
