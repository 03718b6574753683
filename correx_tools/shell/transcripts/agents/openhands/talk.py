"""The conversation of an OpenHands history (the rules are in `calls`' docstring)."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from .....core.lifecycle.conversation import TokenUsage
from ...common.talk import Talk, answer_text, count, model_of

_PROMPTS = frozenset({"message"})
"""The user's actions that are its words (a ``recall`` is OpenHands' own)."""


def talk_in(
    event: dict[str, Any], index: int, where: str, at: datetime | None, *, talk: Talk,
    counted: set[str],
) -> None:  # fmt: skip
    """What one action says around its call (``counted``: the model responses whose
    usage is read already)."""
    found_action = event.get("action")
    action = found_action if isinstance(found_action, str) else None  # a name, or none
    given = event.get("args")
    args: dict[str, Any] = given if isinstance(given, dict) else {}
    source = event.get("source")
    if source == "user" and action in _PROMPTS:
        content = args.get("content", event.get("message"))
        talk.prompt(content if isinstance(content, str) else "", at, (index,))
        return
    if source != "agent" or action == "system":
        return  # the system prompt, the environment's events
    metadata = event.get("tool_call_metadata")
    found = metadata.get("model_response") if isinstance(metadata, dict) else None
    response: dict[str, Any] = found if isinstance(found, dict) else {}
    model = model_of(response.get("model"))
    identifier = response.get("id") if isinstance(response.get("id"), str) else None
    first = identifier is None or identifier not in counted
    if identifier is not None:
        counted.add(identifier)
    usage = response.get("usage")
    if first and isinstance(usage, dict):
        talk.usage(_usage(usage, f"{where}.tool_call_metadata.model_response.usage"), model,
                   at, (index,), identifier)  # fmt: skip
    if first:
        talk.reasoning(answer_text(response, "reasoning_content"), model, at, (index,))
    thought = args.get("thought")
    if action == "message":
        content = args.get("content", event.get("message"))
        thought = content if isinstance(content, str) else thought
    talk.text(thought if isinstance(thought, str) else "", model, at, (index,))


def _usage(usage: dict[str, Any], where: str) -> TokenUsage:
    """A model response's usage as LiteLLM writes it: ``prompt_tokens`` hold the tokens read
    from a cache and those written to one (Anthropic's names, else OpenAI's
    ``prompt_tokens_details.cached_tokens`` for those read)."""
    read = count(usage, "cache_read_input_tokens", where)
    if "cache_read_input_tokens" not in usage:
        details = usage.get("prompt_tokens_details")
        read = count(details, "cached_tokens", where) if isinstance(details, dict) else 0
    written = count(usage, "cache_creation_input_tokens", where)
    prompt = count(usage, "prompt_tokens", where)
    return TokenUsage(
        input=max(0, prompt - read - written),
        output=count(usage, "completion_tokens", where),
        cache_read=read,
        cache_write=written,
    )
