"""The conversation of an OpenAI chat list (the rules are in `calls`' docstring)."""

from __future__ import annotations

from typing import Any

from .....core.lifecycle.conversation import TokenUsage
from ...common.long_text import joined
from ...common.talk import Talk, count, model_of, texts


def openai_said(message: dict[str, Any], index: int, where: str, talk: Talk) -> None:
    """What one OpenAI chat message says around its calls."""
    role = message.get("role")
    if role == "user":
        talk.prompt(joined("\n", texts(message.get("content"))), None, (index,))
    elif role == "assistant":
        model = model_of(message.get("model"))
        usage = message.get("usage")
        if isinstance(usage, dict):
            talk.usage(_openai_usage(usage, f"{where}.usage"), model, None, (index,))
        for key in ("reasoning_content", "reasoning"):
            if isinstance(message.get(key), str):
                talk.reasoning(message[key], model, None, (index,))
        talk.text(joined("\n", texts(message.get("content"))), model, None, (index,))


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
