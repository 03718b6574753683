"""What a Gemini CLI chat looks like (JSON Lines, or the older document): the light tests
recognising tries, kept apart from the reader (`calls`), which is imported only when a chat
is read."""

from __future__ import annotations

from typing import Any

from ...common.lines import first_record_has

FORMAT = "gemini-cli"
EXPECTED = (
    "a Gemini CLI chat: JSON Lines whose first record has sessionId and projectHash, "
    "or one object with them and messages"
)


def looks_like_lines(records: list[tuple[int, Any]]) -> bool:
    """Whether JSON Lines records are a Gemini CLI chat."""
    return first_record_has(records, "sessionId", "projectHash", lacking="type")


def looks_like_document(document: Any) -> bool:
    """Whether a JSON document is a Gemini CLI chat in the older ``.json`` form."""
    return (
        isinstance(document, dict)
        and "sessionId" in document
        and "projectHash" in document
        and isinstance(document.get("messages"), list)
    )
