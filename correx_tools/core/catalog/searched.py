"""What a search of many sessions reads of each event, and what it answers.

Three fields of what agents did are searched:

* ``arguments``: a call's tool name and the strings and numbers of its arguments (the
  Requested event's);
* ``outputs``: the strings and numbers of a completed call's output, or the reason a
  call failed or was rejected;
* ``said``: the conversation's words: prompts, the assistant's text, its reasoning.

Each event gives at most one value (`text_of`); a hit (`SearchHit`) is one event whose
value holds every term of the search (`words.matches`), with a snippet of it
(`snippets.snippet`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Literal, final

from ..lifecycle.conversation import AssistantText, Prompt, Reasoning, conversation_of
from ..lifecycle.events import (
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolInvocationRequestedEvent,
)
from .words import MAX_CHARS

Field = Literal["arguments", "outputs", "said"]
FIELDS: tuple[Field, ...] = ("arguments", "outputs", "said")
"""Every field a search reads, in the order their codes (1, 2, 3) are kept."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class SearchHit:
    """One event that holds what was searched for: its session and sequence, its call
    (``None`` for the conversation), its field, and a snippet of its value (masked, cut)."""

    session_id: str
    invocation_id: str | None
    sequence: int
    field: Field
    snippet: str


def text_of(event: object) -> tuple[Field, str | None, str] | None:
    """The field, call and value ``event`` gives a search; ``None`` for one it does not read."""
    if isinstance(event, ToolInvocationRequestedEvent):
        text = _joined([event.tool_name, *_strings(event.request.arguments)])
        return "arguments", event.invocation_id, text
    if isinstance(event, ToolExecutionCompletedEvent):
        return "outputs", event.invocation_id, _joined(_strings(event.receipt.output))
    if isinstance(event, ToolExecutionFailedEvent | ToolExecutionRejectedEvent):
        return "outputs", event.invocation_id, event.reason[:MAX_CHARS]
    said = conversation_of(event)
    if isinstance(said, Prompt | AssistantText | Reasoning):
        return "said", None, said.text[:MAX_CHARS]
    return None


def _strings(value: object) -> list[str]:
    """The strings and numbers of a JSON value, in order, up to `MAX_CHARS` in all (walked
    without recursion: a value may nest deep)."""
    found: list[str] = []
    size = 0
    stack = [value]
    while stack and size < MAX_CHARS:
        item = stack.pop()
        if isinstance(item, str):
            found.append(item)
            size += len(item) + 1
        elif isinstance(item, bool) or item is None:
            continue
        elif isinstance(item, int | float):
            found.append(str(item))
            size += 8
        elif isinstance(item, Mapping):
            stack.extend(reversed([item[key] for key in sorted(item)]))
        elif isinstance(item, Sequence):
            stack.extend(reversed(item))
    return found


def _joined(parts: list[str]) -> str:
    return "\n".join(parts)[:MAX_CHARS]
