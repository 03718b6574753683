"""What a mini-swe-agent trajectory looks like: the light test recognising tries on a JSON
document, kept apart from the reader (`calls`)."""

from __future__ import annotations

from typing import Any

FORMAT = "mini-swe-agent"
TRAJECTORY_FORMAT = "mini-swe-agent-1"
"""The ``trajectory_format`` its files name (mini-swe-agent 1.x)."""


def looks_like(document: Any) -> bool:
    """Whether a JSON document is a mini-swe-agent trajectory."""
    return (
        isinstance(document, dict)
        and document.get("trajectory_format") == TRAJECTORY_FORMAT
        and isinstance(document.get("messages"), list)
    )
