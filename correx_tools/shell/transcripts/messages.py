"""Message lists an agent loop keeps for the model: OpenAI chat and Anthropic Messages.

A list of messages, or an object holding one as ``messages``. Neither records
times: message ``k`` is at a derived time, ``k`` seconds after a fixed origin
(it keeps the order; the session's description says no time is recorded). Neither
records an exit code, but for a shell result whose text states one (`result_end`).

* **OpenAI chat**: an assistant message's ``tool_calls`` are requests (the
  ``arguments`` string is decoded strictly); a ``role: "tool"`` message, paired
  by ``tool_call_id`` (or SWE-agent's ``tool_call_ids``), completes one.
* **Anthropic Messages**: an assistant message's ``tool_use`` blocks are
  requests; a user message's ``tool_result`` blocks end them, by the rules
  Claude Code's files follow (`result_end`).

The conversation around the calls (`messages_talk`): a ``user`` message's text (a string,
or its text parts or blocks; not a tool's result) is a prompt; an assistant message's text
is its words, and its reasoning is an Anthropic ``thinking`` block, or the
``reasoning_content`` (or ``reasoning``) text some OpenAI-compatible servers add. A list
the loop kept holds no model and no tokens, but for a message stored whole as the API
answered it: its ``model`` and ``usage`` are then read (Anthropic's once per message
``id``; OpenAI's ``prompt_tokens`` hold the ``cached_tokens``, read as cache read).
System messages are not prompts.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import re2

from ..stores.codec.strict_json import EnvelopeError, loads_strict
from .common.outcomes import completed, failed, rejected
from .common.pairing import Pairing
from .common.talk import Talk
from .common.values import must_be, plain_text, text_of
from .errors import Unreadable
from .messages_talk import anthropic_said, openai_said
from .model import Call, End, Position, Transcript, step_time

OPENAI = "openai-chat"
ANTHROPIC = "anthropic-messages"
REJECTION = "doesn't want to proceed with this tool use"
SHELL_TOOLS = frozenset({"Bash"})
"""Claude Code's tool that runs a command: its result states the exit code when it is not 0."""
_EXIT_CODE = re2.compile(r"Exit code (-?[0-9]{1,9})\b")
_STATED = re2.compile(r"Exit code (-?[0-9]{1,9})[ \t\r]*(?:\n|\z)")


def result_end(
    block: dict[str, Any],
    at: datetime,
    position: Position,
    metadata: dict[str, str],
    tool: str,
    *,
    recorded: bool = True,
) -> End:
    """How an Anthropic ``tool_result`` block ends its call of ``tool``: rejected for the
    fixed "doesn't want to proceed" answer; completed with exit code N for an error whose
    text starts ``Exit code N`` (the command ran, and exited so); failed for any other
    error; completed otherwise — with exit code N when the call is a shell's and the first
    line of its text is ``Exit code N`` (as Claude Code writes a command that exited so),
    whether or not ``is_error`` is set; with no exit code when the text states none."""
    content = block.get("content")
    text = plain_text(content)
    if block.get("is_error") is not True:
        stated = _STATED.match(text) if tool in SHELL_TOOLS else None
        code = None if stated is None else int(stated.group(1))
        return completed(at, position, text_of(content), metadata, code, recorded=recorded)
    if REJECTION in text:
        return rejected(at, position, text, metadata, recorded=recorded)
    exit_code = _EXIT_CODE.match(text)
    if exit_code is not None:
        code = int(exit_code.group(1))
        return completed(at, position, text_of(content), metadata, code, recorded=recorded)
    return failed(at, position, text, metadata, recorded=recorded)


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


def kind_of(messages: list[Any]) -> str | None:
    """Which message format a list is in, by what its tool calls look like."""
    for message in messages:
        if not isinstance(message, dict):
            continue
        if message.get("tool_calls") or message.get("role") == "tool":
            return OPENAI
        content = message.get("content")
        if isinstance(content, list) and any(
            isinstance(b, dict) and b.get("type") in ("tool_use", "tool_result") for b in content
        ):
            return ANTHROPIC
    return None


def read(document: Any, name: str, kind: str) -> Transcript:
    """The calls of an OpenAI chat or Anthropic Messages list."""
    found = messages_of(document)
    assert found is not None
    messages, path = found
    calls = Pairing()
    talk = Talk()
    counted: set[str] = set()
    for index, message in enumerate(messages):
        where = f"{path}[{index}]"
        if not isinstance(message, dict):
            raise Unreadable(where, "a message must be a JSON object")
        at = step_time(index)
        if kind == OPENAI:
            _openai(message, index, where, at, calls)
            openai_said(message, index, where, talk)
        else:
            _anthropic(message, index, where, at, calls)
            anthropic_said(message, index, where, talk, counted)
    return Transcript(kind, name, calls.calls(), said=tuple(talk.said))


def _openai(message: dict[str, Any], index: int, where: str, at: datetime, calls: Pairing) -> None:
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
                arguments = loads_strict(text) if text.strip() else {}
            except EnvelopeError as error:
                raise Unreadable(f"{at_call}.function.arguments", str(error)) from None
            calls.request(
                Call(
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


def _anthropic(
    message: dict[str, Any], index: int, where: str, at: datetime, calls: Pairing
) -> None:
    content = message.get("content")
    if not isinstance(content, list):
        return
    for number, block in enumerate(content):
        at_block = f"{where}.content[{number}]"
        if not isinstance(block, dict):
            continue
        if block.get("type") == "tool_use":
            call_id = must_be(block.get("id"), str, f"{at_block}.id", "a tool_use id")
            calls.request(
                Call(
                    call_id=call_id,
                    tool_name=must_be(
                        block.get("name"), str, f"{at_block}.name", "a tool_use name"
                    ),
                    arguments=must_be(
                        block.get("input", {}), dict, f"{at_block}.input", "the input"
                    ),
                    requested_at=at,
                    position=(index, number),
                    where=at_block,
                    recorded=False,
                )
            )
        elif block.get("type") == "tool_result":
            call_id = must_be(
                block.get("tool_use_id"), str, f"{at_block}.tool_use_id", "tool_use_id"
            )
            call = calls.ended(call_id, at_block)
            call.end = result_end(block, at, (index, number), {"tool_use_id": call_id},
                                  call.tool_name, recorded=False)  # fmt: skip
