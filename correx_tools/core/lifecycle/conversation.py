"""The conversation around the calls: prompts, the assistant's words, reasoning, tokens.

A session's stream holds these beside the five tool events, in the order the
agent saw them. They are *well-defined opaque events*: each is an
`OpaqueEvent` with a stable type tag of its own (``conversation.prompt``,
``conversation.text``, ``conversation.reasoning``, ``conversation.usage``,
version 1) and a fixed shape of data, written by `conversation_event` and
read back by `conversation_of`. So every store, the index, ``verify`` and
masking carry them exactly as they carry any other event, and the tool
reducer passes over them: the fold of a session answers the same with them
or without them.

A message's token usage is an event of its own (`Usage`), written once per
message, so that a message made only of tool calls still counts its tokens and a
message written over several records is not counted twice.

>>> event = conversation_event(Prompt(text="fix the tests"))
>>> event.type, conversation_of(event)
('conversation.prompt', Prompt(text='fix the tests'))
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, TypeAlias, final

from .events import OpaqueEvent

PROMPT_TYPE = "conversation.prompt"
TEXT_TYPE = "conversation.text"
REASONING_TYPE = "conversation.reasoning"
USAGE_TYPE = "conversation.usage"
CONVERSATION_TYPES = frozenset({PROMPT_TYPE, TEXT_TYPE, REASONING_TYPE, USAGE_TYPE})
"""The stable type tags of the conversation's events."""
VERSION = 1

_COUNTS = ("input", "output", "cache_read", "cache_write")


MOST_TOKENS = 2**53 - 1
"""The most tokens one count of one message (a `Usage`) may hold: every view, the page's
JavaScript included, shows a count up to it exactly, and a cost of it stays a number. No
model's message comes near; a transcript that says more is damaged or hostile."""


def _check_count(value: object, what: str) -> None:
    if type(value) is not int or value < 0:
        raise ValueError(f"{what} must be an int >= 0, not {value!r:.40}")


def _check_text(value: object, what: str) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")


def _check_model(value: object) -> None:
    if value is not None:
        _check_text(value, "model")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class TokenUsage:
    """Tokens one message spent: ``input`` (not read from a cache), ``output``, and the
    prompt tokens read from (``cache_read``) and written to (``cache_write``) a cache.

    >>> TokenUsage(input=3, output=5) + TokenUsage(cache_read=7)
    TokenUsage(input=3, output=5, cache_read=7, cache_write=0)
    """

    input: int = 0
    output: int = 0
    cache_read: int = 0
    cache_write: int = 0

    def __post_init__(self) -> None:
        for name in _COUNTS:
            _check_count(getattr(self, name), name)

    def __add__(self, other: TokenUsage) -> TokenUsage:
        # Two checked usages add up to counts that are ints >= 0: not checked again (a
        # report adds a usage per window of every session).
        return TokenUsage.unchecked(
            self.input + other.input,
            self.output + other.output,
            self.cache_read + other.cache_read,
            self.cache_write + other.cache_write,
        )

    @staticmethod
    def unchecked(input: int, output: int, cache_read: int, cache_write: int) -> TokenUsage:
        """A usage of counts the caller knows to be ints >= 0 (a sum of usages, or what a
        store wrote from one), made without checking them again."""
        made = object.__new__(TokenUsage)
        object.__setattr__(made, "input", input)
        object.__setattr__(made, "output", output)
        object.__setattr__(made, "cache_read", cache_read)
        object.__setattr__(made, "cache_write", cache_write)
        return made

    @property
    def total(self) -> int:
        """Every token of the four counts."""
        return self.input + self.output + self.cache_read + self.cache_write


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Prompt:
    """What the user asked: it starts a turn."""

    text: str

    def __post_init__(self) -> None:
        _check_text(self.text, "text")


@dataclass(frozen=True, slots=True, kw_only=True)
class _ModelText:
    """Text the assistant wrote, and the model that wrote it when the transcript records
    it: the shape `AssistantText` and `Reasoning` share. They stay two types, neither a
    kind of the other, so that a view and the store tell what was said from what was
    thought."""

    text: str
    model: str | None = None

    def __post_init__(self) -> None:
        _check_text(self.text, "text")
        _check_model(self.model)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class AssistantText(_ModelText):
    """What the assistant said, and the model that said it when the transcript records it."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Reasoning(_ModelText):
    """The assistant's reasoning (thinking, or its summary), as the transcript keeps it."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Usage:
    """The tokens of one message of the model's (``message_id``: its own id, if any)."""

    usage: TokenUsage
    model: str | None = None
    message_id: str | None = None

    def __post_init__(self) -> None:
        if not isinstance(self.usage, TokenUsage):
            raise TypeError(f"usage must be a TokenUsage, not {type(self.usage).__name__}")
        for name in _COUNTS:
            if getattr(self.usage, name) > MOST_TOKENS:
                raise ValueError(f"usage.{name} must be at most {MOST_TOKENS:,} tokens")
        _check_model(self.model)
        if self.message_id is not None:
            _check_text(self.message_id, "message_id")


ConversationEvent: TypeAlias = Prompt | AssistantText | Reasoning | Usage
"""Any of the conversation's events."""


def conversation_event(message: ConversationEvent) -> OpaqueEvent:
    """The event a store keeps for ``message``."""
    data: dict[str, Any]
    match message:
        case Prompt(text=text):
            tag, data = PROMPT_TYPE, {"text": text}
        case AssistantText(text=text, model=model):
            tag, data = TEXT_TYPE, {"text": text, "model": model}
        case Reasoning(text=text, model=model):
            tag, data = REASONING_TYPE, {"text": text, "model": model}
        case Usage(usage=usage, model=model, message_id=message_id):
            counts = {name: getattr(usage, name) for name in _COUNTS}
            tag, data = USAGE_TYPE, {**counts, "model": model, "message_id": message_id}
        case _:
            # A caller's mistake (the type checker finds it too): named, as a bad field is.
            raise TypeError(
                "a step of the conversation is a Prompt, AssistantText, Reasoning or Usage, "
                f"not {type(message).__name__}"
            )
    return OpaqueEvent(
        type=tag,
        version=VERSION,
        data={key: value for key, value in data.items() if value is not None},
    )


def conversation_of(event: object) -> ConversationEvent | None:
    """The conversation's event ``event`` holds; ``None`` for any other event, and for one
    of a conversation type whose data is not what `conversation_event` writes (a later
    version, a store edited by hand): a view then shows it as an event it does not know."""
    if not isinstance(event, OpaqueEvent) or event.version != VERSION:
        return None
    tag = event.type
    if tag not in CONVERSATION_TYPES:
        return None
    data = event.data
    if tag == USAGE_TYPE:
        data = dict(data.items())  # read at once: a frozen map's six lookups cost more
    try:
        model = _optional(data, "model")
        if tag == USAGE_TYPE:
            counts = {name: data.get(name, 0) for name in _COUNTS}
            return Usage(
                usage=TokenUsage(**counts),
                model=model,
                message_id=_optional(data, "message_id"),
            )
        text: str = data["text"]
        if tag == PROMPT_TYPE:
            return Prompt(text=text)
        if tag == TEXT_TYPE:
            return AssistantText(text=text, model=model)
        return Reasoning(text=text, model=model)
    except (KeyError, TypeError, ValueError):
        return None


def _optional(data: Mapping[str, Any], key: str) -> str | None:
    value = data.get(key)
    if value is not None and not isinstance(value, str):
        raise TypeError(f"{key} must be a str")
    return value
