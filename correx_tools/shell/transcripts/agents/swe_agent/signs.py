"""What a SWE-agent trajectory looks like: the light test recognising tries on a JSON
document, kept apart from the reader (`calls`), which is imported only when a trajectory is
read."""

from __future__ import annotations

from typing import Any

FORMAT = "swe-agent"


def looks_like(document: Any) -> bool:
    """Whether a JSON document is a SWE-agent trajectory."""
    return isinstance(document, dict) and isinstance(document.get("trajectory"), list)
