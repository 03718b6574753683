"""What the readers of the conversation around the calls share: token counts read strictly,
the text of a message's parts, and the list a reader puts what it reads into.

A count the transcript writes must be a whole number from 0 to `MOST_COUNTED` (``null``
and a missing key are 0: the format records none for that count); anything else is
`Unreadable`, named by where it is.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ....core.lifecycle.conversation import (
    AssistantText,
    ConversationEvent,
    Prompt,
    Reasoning,
    TokenUsage,
    Usage,
)
from ..errors import Unreadable
from ..model import Position, TalkStep

MOST_COUNTED = 10**15
"""The most tokens a transcript's count may say: a quadrillion, which no message comes near.
A message's usage adds at most four counts, and stays within `MOST_TOKENS`."""


def count(values: Mapping[str, Any], key: str, where: str, within: str = "") -> int:
    """The count ``values[key]`` (0 when missing or ``null``); ``within`` names ``values``
    in the error, where ``where`` does not."""
    value = values.get(key)
    if value is None:
        return 0
    if type(value) is not int or value < 0:
        raise Unreadable(
            where, f"{within}{key} must be a whole number at least 0, not {value!r:.40}"
        )
    if value > MOST_COUNTED:
        raise Unreadable(where, too_many(f"{within}{key}", value))
    return value


def too_many(what: str, value: int) -> str:
    """Why a count over `MOST_COUNTED` is refused (its digits counted, not printed)."""
    return f"{what} must be at most {MOST_COUNTED:,} tokens, not a number of {digits(value)} digits"


def digits(value: int) -> int:
    """How many decimal digits ``value`` (at least 1) has, without printing it (Python
    refuses to print an integer of more than 4,300 digits)."""
    guess = max(1, int(value.bit_length() * 0.30103))
    return guess + 1 if value >= 10**guess else guess


def texts(parts: object, key: str = "text") -> list[str]:
    """The text of each part of a message's content that has one (a string is one part)."""
    if isinstance(parts, str):
        return [parts]
    if not isinstance(parts, list):
        return []
    return [
        part[key] for part in parts if isinstance(part, dict) and isinstance(part.get(key), str)
    ]


class Talk:
    """The conversation a reader gathers, in the file's order: each step at a place just
    before the calls of the same record (``(record, -1, n)``), unless given its own."""

    def __init__(self) -> None:
        self.steps: list[TalkStep] = []
        self._count = 0

    def put(self, message: ConversationEvent, at: datetime | None, record: Position) -> None:
        """Put ``message``, told by ``record`` (its place), before that record's calls."""
        self._count += 1
        self.steps.append(TalkStep((*record, -1, self._count), at, message))

    def prompt(self, text: str, at: datetime | None, record: Position) -> None:
        """A prompt, if it says anything."""
        if text.strip():
            self.put(Prompt(text=text), at, record)

    def text(self, text: str, model: str | None, at: datetime | None, record: Position) -> None:
        """The assistant's words, if they say anything."""
        if text.strip():
            self.put(AssistantText(text=text, model=model), at, record)

    def reasoning(
        self, text: str, model: str | None, at: datetime | None, record: Position
    ) -> None:
        """The assistant's reasoning, if it says anything."""
        if text.strip():
            self.put(Reasoning(text=text, model=model), at, record)

    def usage(
        self,
        usage: TokenUsage,
        model: str | None,
        at: datetime | None,
        record: Position,
        message_id: str | None = None,
    ) -> None:
        """One message's tokens."""
        self.put(Usage(usage=usage, model=model, message_id=message_id), at, record)


def answer_text(response: dict[str, Any], key: str) -> str:
    """The text under ``key`` of a chat completion's first answer (``choices[0].message``),
    as LiteLLM and OpenRouter keep a response: its reasoning, where kept; ``""`` if none."""
    choices = response.get("choices")
    choice = choices[0] if isinstance(choices, list) and choices else None
    message = choice.get("message") if isinstance(choice, dict) else None
    text = message.get(key) if isinstance(message, dict) else None
    return text if isinstance(text, str) else ""


def model_of(value: object) -> str | None:
    """A model's name, when it is a non-empty string."""
    return value if isinstance(value, str) and value else None
