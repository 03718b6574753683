"""OpenAI chat message lists an agent loop keeps for the model (`common.message_lists`).

An assistant message's ``tool_calls`` are requests (the ``arguments`` string is
decoded strictly); a ``role: "tool"`` message, paired by ``tool_call_id`` (or
SWE-agent's ``tool_call_ids``), completes one. No exit code is recorded.

The conversation around the calls (`talk`): a ``user`` message's text (a string, or its
text parts) is a prompt; an assistant message's text is its words, and its reasoning
the ``reasoning_content`` (or ``reasoning``) text some OpenAI-compatible servers add. A
list the loop kept holds no model and no tokens, but for a message stored whole as the
API answered it: its ``model`` and ``usage`` are then read (``prompt_tokens`` hold the
``cached_tokens``, read as cache read). System messages are not prompts.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

from ....stores.codec.strict_json import EnvelopeError
from ...common.lines import loads_shallow
from ...common.message_lists import read_list
from ...common.outcomes import completed
from ...common.pairing import Pairing
from ...common.talk import Talk
from ...common.values import must_be, text_of
from ...errors import Unreadable
from ...model import Transcript, TranscriptCall, step_time
from .signs import FORMAT
from .talk import openai_said


def read(document: Any, name: str) -> Transcript:
    """The calls of an OpenAI chat list, and its conversation."""

    def step(message: dict[str, Any], index: int, where: str, calls: Pairing, talk: Talk) -> None:
        _calls(message, index, where, step_time(index), calls)
        openai_said(message, index, where, talk)

    return read_list(document, name, FORMAT, step)


def _calls(message: dict[str, Any], index: int, where: str, at: datetime, calls: Pairing) -> None:
    role = message.get("role")
    if role == "assistant":
        tool_calls = message.get("tool_calls") or []
        must_be(tool_calls, list, f"{where}.tool_calls", "tool_calls")
        for number, tool_call in enumerate(tool_calls):
            at_call = f"{where}.tool_calls[{number}]"
            must_be(tool_call, dict, at_call, "a tool call")
            function = must_be(tool_call.get("function"), dict, f"{at_call}.function", "function")
            text = function.get("arguments", "{}")
            must_be(text, str, f"{at_call}.function.arguments", "the arguments")
            try:
                arguments = loads_shallow(text) if text.strip() else {}
            except EnvelopeError as error:
                raise Unreadable(f"{at_call}.function.arguments", str(error)) from None
            calls.request(
                TranscriptCall(
                    call_id=must_be(tool_call.get("id"), str, f"{at_call}.id", "a tool call's id"),
                    tool_name=must_be(
                        function.get("name"), str, f"{at_call}.function.name", "name"
                    ),
                    arguments=must_be(
                        arguments, dict, f"{at_call}.function.arguments", "arguments"
                    ),
                    requested_at=at,
                    position=(index, number),
                    where=at_call,
                    recorded=False,
                )
            )
    elif role == "tool":
        ids = message.get("tool_call_ids") or [message.get("tool_call_id")]
        must_be(ids, list, f"{where}.tool_call_ids", "tool_call_ids")
        for number, call_id in enumerate(ids):
            must_be(call_id, str, f"{where}.tool_call_id", "tool_call_id")
            call = calls.ended(call_id, where)
            output = text_of(message.get("content"))
            call.end = completed(
                at, (index, number), output, {"tool_call_id": call_id}, recorded=False
            )
