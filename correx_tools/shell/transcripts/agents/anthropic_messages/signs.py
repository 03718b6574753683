"""What an Anthropic Messages list looks like: the light test recognising tries on a JSON
document, kept apart from the reader (`calls`), which is imported only when a list is read."""

from __future__ import annotations

from typing import Any

from ...common.message_shapes import holds_calls_of

FORMAT = "anthropic-messages"


def looks_like(document: Any) -> bool:
    """Whether a JSON document is a message list holding Anthropic's ``tool_use`` blocks."""
    return holds_calls_of(document, "anthropic")
