"""What an OpenHands event history and completion log look like: the light tests
recognising tries on a JSON document, kept apart from the readers (`calls`,
`completions`), which are imported only when a file of them is read."""

from __future__ import annotations

from typing import Any

FORMAT = "openhands"
COMPLETION_FORMAT = "openhands-completion"


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


def looks_like_completion(document: Any) -> bool:
    """Whether a JSON document is a completion log: messages, and the model's response."""
    return (
        isinstance(document, dict)
        and isinstance(document.get("messages"), list)
        and isinstance(document.get("response"), dict)
        and ("cost" in document or "kwargs" in document)
    )
