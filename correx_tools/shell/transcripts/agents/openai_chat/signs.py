"""What an OpenAI chat message list looks like: the light test recognising tries on a JSON
document, kept apart from the reader (`calls`), which is imported only when a list is read."""

from __future__ import annotations

from typing import Any

from ...common.message_shapes import holds_calls_of

FORMAT = "openai-chat"


def looks_like(document: Any) -> bool:
    """Whether a JSON document is a message list holding OpenAI's ``tool_calls``."""
    return holds_calls_of(document, "openai")
