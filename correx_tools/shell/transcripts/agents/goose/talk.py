"""The conversation of a Goose session (the rules are in `calls`' docstring)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from .....core.lifecycle.conversation import TokenUsage
from ...common.talk import Talk, count
from ...model import Position

_TOTALS = (
    ("accumulated_input_tokens", "accumulated_output_tokens"),
    ("input_tokens", "output_tokens"),
)
"""The session's token counts, the whole session's first (a release before them kept its
running totals in the plain names)."""


def talk_in(
    message: dict[str, Any], item: dict[str, Any], at: datetime, place: Position, talk: Talk
) -> None:
    """What one content item of a message says (``place``: the item's)."""
    metadata = message.get("metadata")
    if isinstance(metadata, dict) and metadata.get("userVisible") is False:
        return  # what Goose wrote for the model only: a compaction's summary, a reminder
    role, kind = message.get("role"), item.get("type")
    if kind == "text" and isinstance(item.get("text"), str):
        if role == "user":
            talk.prompt(item["text"], at, place)
        elif role == "assistant":
            talk.text(item["text"], None, at, place)
    elif kind == "thinking" and role == "assistant" and isinstance(item.get("thinking"), str):
        talk.reasoning(item["thinking"], None, at, place)


def session_usage(
    session: Mapping[str, Any], where: str, at: datetime | None, place: Position, talk: Talk
) -> None:
    """The session's tokens, where Goose recorded them (one usage)."""
    for keys in _TOTALS:
        if any(session.get(key) is not None for key in keys):
            given, taken = (count(session, key, where) for key in keys)
            talk.usage(TokenUsage(input=given, output=taken), None, at, place)
            return
