"""The conversation of a mini-swe-agent trajectory (the rules are in `calls`' docstring)."""

from __future__ import annotations

import math
from datetime import UTC, datetime
from typing import Any

from .....core.lifecycle.conversation import TokenUsage
from ...common.talk import Talk, answer_text, count, model_of


def talk_in(messages: list[Any]) -> Talk:
    """The task, each assistant message's words, reasoning and tokens."""
    talk = Talk()
    prompted = False
    counted: set[str] = set()
    for index, message in enumerate(messages):
        if not isinstance(message, dict):
            continue
        role, content = message.get("role"), message.get("content")
        text = content if isinstance(content, str) else ""
        if role == "user" and not prompted:
            talk.prompt(text, None, (index,))
            prompted = True  # the later user messages are the commands' results
        elif role == "assistant":
            response = _response(message)
            model = model_of(response.get("model"))
            at = None  # its steps record no time (`calls`)
            identifier = response.get("id") if isinstance(response.get("id"), str) else None
            usage = response.get("usage")
            if isinstance(usage, dict) and (identifier is None or identifier not in counted):
                where = f"$.messages[{index}].extra.response.usage"
                talk.usage(_usage(usage, where), model, at, (index,), identifier)
            if identifier is not None:
                counted.add(identifier)
            talk.reasoning(answer_text(response, "reasoning"), model, at, (index,))
            talk.text(text, model, at, (index,))
    return talk


def _response(message: dict[str, Any]) -> dict[str, Any]:
    extra = message.get("extra")
    response = extra.get("response") if isinstance(extra, dict) else None
    return response if isinstance(response, dict) else {}


def response_time(message: dict[str, Any]) -> datetime | None:
    """When the model's response was made (its ``created`` seconds), where recorded."""
    created = _response(message).get("created")
    if isinstance(created, bool) or not isinstance(created, int | float):
        return None
    if not math.isfinite(created) or not 0 < created < 253_402_300_800:  # before year 10000
        return None
    return datetime.fromtimestamp(created, UTC)


def _usage(usage: dict[str, Any], where: str) -> TokenUsage:
    details = usage.get("prompt_tokens_details")
    cached = count(details, "cached_tokens", where) if isinstance(details, dict) else 0
    prompt = count(usage, "prompt_tokens", where)
    cached = min(cached, prompt)
    return TokenUsage(
        input=prompt - cached, output=count(usage, "completion_tokens", where), cache_read=cached
    )
