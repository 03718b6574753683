"""The conversation of an OpenAI chat or Anthropic Messages list (the rules are in
`messages`' docstring)."""

from __future__ import annotations

from typing import Any

from ...core.lifecycle.conversation import TokenUsage
from .common.talk import Talk, count, model_of, texts


def openai_said(message: dict[str, Any], index: int, where: str, talk: Talk) -> None:
    """What one OpenAI chat message says around its calls."""
    role = message.get("role")
    if role == "user":
        talk.prompt("\n".join(texts(message.get("content"))), None, (index,))
    elif role == "assistant":
        model = model_of(message.get("model"))
        usage = message.get("usage")
        if isinstance(usage, dict):
            talk.usage(_openai_usage(usage, f"{where}.usage"), model, None, (index,))
        for key in ("reasoning_content", "reasoning"):
            if isinstance(message.get(key), str):
                talk.reasoning(message[key], model, None, (index,))
        talk.text("\n".join(texts(message.get("content"))), model, None, (index,))


def _openai_usage(usage: dict[str, Any], where: str) -> TokenUsage:
    """OpenAI's ``prompt_tokens`` hold the cached ones (``prompt_tokens_details``)."""
    details = usage.get("prompt_tokens_details")
    cached = (
        count(details, "cached_tokens", f"{where}.prompt_tokens_details")
        if isinstance(details, dict)
        else 0
    )
    prompt = count(usage, "prompt_tokens", where)
    cached = min(cached, prompt)
    return TokenUsage(
        input=prompt - cached, output=count(usage, "completion_tokens", where), cache_read=cached
    )


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
            said = [b for b in content if isinstance(b, dict) and b.get("type") == "text"]
            talk.prompt("\n".join(texts(said)), None, (index,))
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
