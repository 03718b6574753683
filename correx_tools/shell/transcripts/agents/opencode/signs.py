"""What an OpenCode export looks like: the light test recognising tries on a JSON document,
kept apart from the reader (`calls`), which is imported only when an export is read."""

from __future__ import annotations

from typing import Any

FORMAT = "opencode"
EXPECTED = "an opencode export: an object with info (an id 'ses_...') and messages of parts"


def looks_like(document: Any) -> bool:
    """Whether a JSON document is an ``opencode export``."""
    info = document.get("info") if isinstance(document, dict) else None
    return (
        isinstance(info, dict)
        and isinstance(info.get("id"), str)
        and info["id"].startswith("ses_")
        and isinstance(document.get("messages"), list)
    )
