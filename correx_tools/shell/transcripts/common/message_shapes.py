"""Where a document holds a message list an agent loop keeps for the model, and whose tool
calls the list holds (OpenAI chat or Anthropic Messages): what recognising asks of a
document, kept apart from the readers (`message_lists`)."""

from __future__ import annotations

from typing import Any, Literal


def messages_of(document: Any) -> tuple[list[Any], str] | None:
    """The message list of a document and its JSON path, or ``None``."""
    if isinstance(document, dict) and isinstance(document.get("messages"), list):
        return document["messages"], "$.messages"
    if (
        isinstance(document, list)
        and document
        and all(isinstance(m, dict) and "role" in m for m in document[:20])
    ):
        return document, "$"
    return None


def tool_style(messages: list[Any]) -> Literal["openai", "anthropic"] | None:
    """Whose tool calls a list holds, told by the first message that holds any."""
    for message in messages:
        if not isinstance(message, dict):
            continue
        if message.get("tool_calls") or message.get("role") == "tool":
            return "openai"
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result") for b in content
        ):
            return "anthropic"
    return None


def holds_calls_of(document: Any, style: Literal["openai", "anthropic"]) -> bool:
    """Whether a document is a message list holding ``style``'s tool calls."""
    found = messages_of(document)
    return found is not None and tool_style(found[0]) == style
