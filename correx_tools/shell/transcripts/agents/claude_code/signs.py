"""What a Claude Code session file looks like: the light test recognising tries on a JSON
Lines file's first records, kept apart from the reader (`calls`), which is imported only
when a session is read."""

from __future__ import annotations

from typing import Any

FORMAT = "claude-code"
RECORD_TYPES = frozenset(
    {
        "user",
        "assistant",
        "progress",
        "system",
        "summary",
        "file-history-snapshot",
        "queue-operation",
    }
)


def looks_like(records: list[tuple[int, Any]]) -> bool:
    """Whether these JSON Lines records are a Claude Code session file."""
    seen = [record for _, record in records[:20] if isinstance(record, dict)]
    return (
        bool(seen)
        and all(str(record.get("type")) in RECORD_TYPES for record in seen)
        and any("sessionId" in record or "uuid" in record for record in seen)
    )
