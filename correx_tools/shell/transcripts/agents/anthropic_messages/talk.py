"""The conversation of an Anthropic Messages list (the rules are in `calls`' docstring)."""

from __future__ import annotations

from typing import Any

from .....core.lifecycle.conversation import TokenUsage
from ...common.long_text import joined
from ...common.talk import Talk, count, model_of, texts


def anthropic_said(
    message: dict[str, Any], index: int, where: str, talk: Talk, counted: set[str]
) -> None:
    """What one Anthropic message says around its calls (``counted``: the ids of the
    messages whose usage is read already)."""
    role = message.get("role")
    content = message.get("content")
    if role == "user":
        if isinstance(content, str):
            talk.prompt(content, None, (index,))
        elif isinstance(content, list):
            blocks = [b for b in content if isinstance(b, dict) and b.get("type") == "text"]
            talk.prompt(joined("\n", texts(blocks)), None, (index,))
        return
    if role != "assistant":
        return
    model = model_of(message.get("model"))
    identifier = message.get("id") if isinstance(message.get("id"), str) else None
    usage = message.get("usage")
    if isinstance(usage, dict) and (identifier is None or identifier not in counted):
        if identifier is not None:
            counted.add(identifier)
        talk.usage(anthropic_usage(usage, f"{where}.usage"), model, None, (index,), identifier)
    if isinstance(content, str):
        talk.text(content, model, None, (index,))
        return
    for number, block in enumerate(content if isinstance(content, list) else []):
        if not isinstance(block, dict):
            continue
        if block.get("type") == "text" and isinstance(block.get("text"), str):
            talk.text(block["text"], model, None, (index, number))
        elif block.get("type") == "thinking" and isinstance(block.get("thinking"), str):
            talk.reasoning(block["thinking"], model, None, (index, number))


def anthropic_usage(usage: dict[str, Any], where: str) -> TokenUsage:
    """An Anthropic message's ``usage``, as Claude Code's files keep it too."""
    return TokenUsage(
        input=count(usage, "input_tokens", where),
        output=count(usage, "output_tokens", where),
        cache_read=count(usage, "cache_read_input_tokens", where),
        cache_write=count(usage, "cache_creation_input_tokens", where),
    )
