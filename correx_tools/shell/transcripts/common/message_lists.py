"""Message lists an agent loop keeps for the model (OpenAI chat, Anthropic Messages): where a
document holds its list, whose tool calls the list holds, and the one walk over it that
both formats' readers share.

A list of messages, or an object holding one as ``messages``. Neither format records
times: message ``k`` is at a derived time, ``k`` seconds after a fixed origin (it keeps
the order; the session's description says no time is recorded).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Literal

from ..errors import Unreadable
from ..model import Transcript
from .pairing import Pairing
from .talk import Talk

Step = Callable[[dict[str, Any], int, str, Pairing, Talk], None]
"""``step(message, index, where, calls, talk)``: what message ``index`` (at ``where``) adds
to the calls and the conversation read so far; its time is `model.step_time` of its
index."""


def messages_of(document: Any) -> tuple[list[Any], str] | None:
    """The message list of a document and its JSON path, or ``None``."""
    if isinstance(document, dict) and isinstance(document.get("messages"), list):
        return document["messages"], "$.messages"
    if (
        isinstance(document, list)
        and document
        and all(isinstance(m, dict) and "role" in m for m in document[:20])
    ):
        return document, "$"
    return None


def tool_style(messages: list[Any]) -> Literal["openai", "anthropic"] | None:
    """Whose tool calls a list holds, told by the first message that holds any."""
    for message in messages:
        if not isinstance(message, dict):
            continue
        if message.get("tool_calls") or message.get("role") == "tool":
            return "openai"
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result") for b in content
        ):
            return "anthropic"
    return None


def holds_calls_of(document: Any, style: Literal["openai", "anthropic"]) -> bool:
    """Whether a document is a message list holding ``style``'s tool calls."""
    found = messages_of(document)
    return found is not None and tool_style(found[0]) == style


def read_list(document: Any, name: str, format: str, step: Step) -> Transcript:
    """The calls and conversation of a message list, each message read by ``step``."""
    found = messages_of(document)
    assert found is not None
    messages, path = found
    calls = Pairing()
    talk = Talk()
    for index, message in enumerate(messages):
        where = f"{path}[{index}]"
        if not isinstance(message, dict):
            raise Unreadable(where, "a message must be a JSON object")
        step(message, index, where, calls, talk)
    return Transcript(format, name, calls.calls(), talk=tuple(talk.steps))
