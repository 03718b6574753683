"""What an OpenHands event history looks like: the light test recognising tries on a JSON
document, kept apart from the reader (`calls`), which is imported only when a history is
read."""

from __future__ import annotations

from typing import Any

FORMAT = "openhands"


def events_of(document: Any) -> tuple[list[Any], str] | None:
    """The event list of an OpenHands document and its JSON path, or ``None``."""
    if isinstance(document, dict) and isinstance(document.get("history"), list):
        events, path = document["history"], "$.history"
    elif isinstance(document, list):
        events, path = document, "$"
    else:
        return None
    first = [event for event in events[:20] if isinstance(event, dict)]
    if first and all(
        "id" in e and "timestamp" in e and ("action" in e or "observation" in e) for e in first
    ):
        return events, path
    return None


def looks_like(document: Any) -> bool:
    """Whether a JSON document is an OpenHands history."""
    return events_of(document) is not None
