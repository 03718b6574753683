"""The conversation of a Gemini CLI chat: its prompts, the model's words and thoughts, the
model and the tokens of each message (the rules are in `calls`' docstring)."""

from __future__ import annotations

from typing import Any

from .....core.lifecycle.conversation import TokenUsage
from ...common.long_text import blank, joined
from ...common.talk import Talk, count, model_of, texts
from ...common.values import utc_time
from ...model import TalkStep


def talk_in(message: dict[str, Any], first: int, where: str) -> list[TalkStep]:
    """What one copy of a message says, placed where the message first appeared (record
    ``first``), before its calls."""
    kind = message.get("type")
    if kind not in ("user", "gemini"):
        return []  # info, error, warning: the CLI's own notes
    stamp = message.get("timestamp")
    at = utc_time(stamp, f"{where}: timestamp") if stamp else None
    talk = Talk()
    if kind == "user":
        talk.prompt(joined("\n", texts(message.get("content"))), at, (first,))
        return talk.steps
    model = model_of(message.get("model"))
    tokens = message.get("tokens")
    if isinstance(tokens, dict):
        identifier = message.get("id") if isinstance(message.get("id"), str) else None
        talk.usage(_usage(tokens, f"{where}: tokens"), model, at, (first,), identifier)
    thoughts = message.get("thoughts")
    for thought in thoughts if isinstance(thoughts, list) else []:  # another shape: none
        if isinstance(thought, dict):
            parts = [thought.get("subject"), thought.get("description")]
            text = joined("\n", (p for p in parts if isinstance(p, str) and not blank(p)))
            talk.reasoning(text, model, at, (first,))
    talk.text(joined("\n", texts(message.get("content"))), model, at, (first,))
    return talk.steps


def _usage(tokens: dict[str, Any], where: str) -> TokenUsage:
    """Gemini's counts as the four: its ``input`` holds the ``cached`` tokens (read from a
    cache), and the ``tool`` prompt tokens are input too; its ``thoughts`` are output."""
    given = {key: count(tokens, key, where) for key in ("input", "output", "cached",
                                                         "thoughts", "tool")}  # fmt: skip
    cached = min(given["cached"], given["input"])
    return TokenUsage(
        input=given["input"] - cached + given["tool"],
        output=given["output"] + given["thoughts"],
        cache_read=cached,
    )
