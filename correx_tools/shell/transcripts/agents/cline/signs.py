"""What a Cline or Roo Code task's history looks like: the light test recognising tries on a
JSON document, kept apart from the reader (`calls`), which is imported only when a task is
read."""

from __future__ import annotations

from typing import Any

import re2

FORMAT = "cline"
HISTORY = "api_conversation_history.json"
"""The name of every task's history, in a folder named by the task's id."""
UI_MESSAGES = "ui_messages.json"
"""The file Cline keeps beside each task's history."""
EXPECTED = (
    "a Cline or Roo Code api_conversation_history.json: a list of messages whose user turns "
    "hold '[tool for ...] Result:' or <environment_details>"
)
RESULT = re2.compile(r"\A\[(\w+)(?: for [^\n]*)?\] Result:")
"""How a user text that gives a tool's result begins."""


def looks_like(document: Any) -> bool:
    """Whether a JSON document is a Cline or Roo Code conversation history."""
    if not isinstance(document, list) or not document:
        return False
    for message in document[:20]:
        if not isinstance(message, dict) or "role" not in message:
            return False
    return any(
        message.get("role") == "user"
        and any(
            RESULT.match(text) or "<environment_details>" in text for text in message_texts(message)
        )
        for message in document[:20]
    )


def message_texts(message: dict[str, Any]) -> list[str]:
    """The texts of a message: its content, its text blocks, its tool results' texts."""
    content = message.get("content")
    if isinstance(content, str):
        return [content]
    if not isinstance(content, list):
        return []
    found: list[str] = []
    for block in content:
        if isinstance(block, dict) and block.get("type") == "text":
            text = block.get("text")
            found.append(text if isinstance(text, str) else "")
        elif isinstance(block, dict) and block.get("type") == "tool_result":
            found.extend(message_texts(block))
    return found
