"""The conversation of an ``opencode export`` (the rules are in `calls`' docstring)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .....core.lifecycle.conversation import TokenUsage
from ...common.talk import Talk, count, model_of


def talk_in(
    details: dict[str, Any], parts: list[Any], index: int, where: str, at: datetime | None, *,
    talk: Talk,
) -> None:  # fmt: skip
    """What one message (its ``info`` and ``parts``) says around its calls."""
    role = details.get("role")
    model = model_of(details.get("modelID")) if role == "assistant" else None
    finished = False
    for number, part in enumerate(parts):
        if not isinstance(part, dict) or part.get("synthetic") is True:
            continue  # OpenCode's own text (a file it attached, a note to the model)
        kind, text = part.get("type"), part.get("text")
        place = (index, number)
        if kind == "text" and isinstance(text, str):
            if role == "user":
                talk.prompt(text, at, place)
            elif role == "assistant":
                talk.text(text, model, at, place)
        elif kind == "reasoning" and isinstance(text, str) and role == "assistant":
            talk.reasoning(text, model, at, place)
        elif kind == "step-finish" and isinstance(part.get("tokens"), dict) and model is not None:
            usage = _usage(part["tokens"], f"{where}.parts[{number}].tokens")
            talk.usage(usage, model, at, place, _identifier(details))
            finished = True
    if role == "assistant" and not finished and isinstance(details.get("tokens"), dict):
        usage = _usage(details["tokens"], f"{where}.info.tokens")
        if usage.total:  # a message whose step has not finished counts none yet
            talk.usage(usage, model, at, (index,), _identifier(details))


def _identifier(details: dict[str, Any]) -> str | None:
    return details.get("id") if isinstance(details.get("id"), str) else None


def _usage(tokens: dict[str, Any], where: str) -> TokenUsage:
    """OpenCode's counts: ``input`` less the cache's, ``reasoning`` tokens are output."""
    cache = tokens.get("cache")
    cache = cache if isinstance(cache, dict) else {}
    return TokenUsage(
        input=count(tokens, "input", where),
        output=count(tokens, "output", where) + count(tokens, "reasoning", where),
        cache_read=count(cache, "read", f"{where}.cache"),
        cache_write=count(cache, "write", f"{where}.cache"),
    )
