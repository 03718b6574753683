"""The conversation of a Codex rollout: its prompts, the assistant's words and reasoning,
the model and the tokens (the rules are in `calls`' docstring)."""

from __future__ import annotations

from typing import Any

from .....core.lifecycle.conversation import (
    AssistantText,
    ConversationEvent,
    Prompt,
    Reasoning,
    TokenUsage,
    Usage,
)
from ...common.long_text import blank, joined
from ...common.talk import count
from ...common.values import utc_time
from ...model import Position, TalkStep

_COUNTS = ("input_tokens", "cached_input_tokens", "output_tokens")
_CODEX_OWN = ("<", "# AGENTS.md instructions")
"""How the user messages Codex writes itself begin (its environment, the instructions)."""


class CodexTalk:
    """What a rollout's records say around its calls, read one record at a time."""

    def __init__(self) -> None:
        self._steps: list[TalkStep] = []
        self._model: str | None = None
        self._total = (0, 0, 0)

    def read(
        self, kind: object, payload: dict[str, Any], stamp: object, at: Position, where: str
    ) -> None:
        """Take one ``event_msg``, ``turn_context`` or ``response_item`` message or
        reasoning record's payload."""
        if kind == "turn_context":
            model = payload.get("model")
            self._model = model if isinstance(model, str) and model else self._model
            return
        item = payload.get("type")
        if kind == "event_msg":
            if item == "token_count":
                self._tokens(payload.get("info"), stamp, at, where)
        elif item == "reasoning":
            parts = [*_texts(payload.get("summary")), *_texts(payload.get("content"))]
            text = joined("\n\n", (part for part in parts if not blank(part)))
            if text:
                self._put(self._steps, Reasoning(text=text, model=self._model), stamp, at, where)
        elif payload.get("role") == "assistant":
            text = joined("\n", _texts(payload.get("content")))
            if text.strip():
                words = AssistantText(text=text, model=self._model)
                self._put(self._steps, words, stamp, at, where)
        elif payload.get("role") == "user":
            text = joined("\n", _texts(payload.get("content")))
            if text.strip() and not text.lstrip().startswith(_CODEX_OWN):
                self._put(self._steps, Prompt(text=text), stamp, at, where)

    def steps(self) -> tuple[TalkStep, ...]:
        """Everything read, in the file's order."""
        return tuple(self._steps)

    def _put(
        self, into: list[TalkStep], message: ConversationEvent, stamp: object, at: Position,
        where: str,
    ) -> None:  # fmt: skip
        moment = None if stamp is None else utc_time(stamp, f"{where}: timestamp")
        into.append(TalkStep(at, moment, message))

    def _tokens(self, info: object, stamp: object, at: Position, where: str) -> None:
        total = info.get("total_token_usage") if isinstance(info, dict) else None
        if not isinstance(total, dict):
            return
        # As every format's (`count`): null is 0, and a false, 0.0 or "" is no count.
        counts = [count(total, key, where, "total_token_usage.") for key in _COUNTS]
        now = (counts[0], counts[1], counts[2])
        before = self._total
        if any(n < b for n, b in zip(now, before, strict=True)):
            before = (0, 0, 0)  # a total that went down began again
        self._total = now
        added = [n - b for n, b in zip(now, before, strict=True)]
        if not any(added):
            return  # the same total again: nothing spent since
        cached = min(added[1], added[0])
        usage = TokenUsage(input=added[0] - cached, cache_read=cached, output=added[2])
        self._put(self._steps, Usage(usage=usage, model=self._model), stamp, at, where)


def _texts(content: object) -> list[str]:
    """The text of a message's content items, or of a reasoning item's summary."""
    if not isinstance(content, list):
        return []
    return [
        item["text"]
        for item in content
        if isinstance(item, dict) and isinstance(item.get("text"), str)
    ]
