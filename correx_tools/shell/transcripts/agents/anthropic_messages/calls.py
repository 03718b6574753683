"""Anthropic Messages lists an agent loop keeps for the model (`common.message_lists`).

An assistant message's ``tool_use`` blocks are requests; a user message's
``tool_result`` blocks end them, by the rules Claude Code's files follow too
(`result_end`). No exit code is recorded, but for a shell result whose text
states one.

The conversation around the calls (`talk`): a ``user`` message's text (a string, or
its text blocks; not a tool's result) is a prompt; an assistant message's text is its
words, and its ``thinking`` blocks its reasoning. A list the loop kept holds no model
and no tokens, but for a message stored whole as the API answered it: its ``model``
and ``usage`` are then read, once per message ``id``. System messages are not prompts.
"""

from __future__ import annotations

from datetime import datetime
from typing import Any

import re2

from ...common.message_lists import read_list
from ...common.outcomes import completed, failed, rejected
from ...common.pairing import Pairing
from ...common.talk import Talk
from ...common.values import must_be, plain_text, text_of
from ...model import End, Position, Transcript, TranscriptCall, step_time
from .signs import FORMAT
from .talk import anthropic_said

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


def read(document: Any, name: str) -> Transcript:
    """The calls of an Anthropic Messages list, and its conversation."""
    counted: set[str] = set()  # the ids of the messages whose usage is read already

    def step(message: dict[str, Any], index: int, where: str, calls: Pairing, talk: Talk) -> None:
        _calls(message, index, where, step_time(index), calls)
        anthropic_said(message, index, where, talk, counted)

    return read_list(document, name, FORMAT, step)


def _calls(message: dict[str, Any], index: int, where: str, at: datetime, calls: Pairing) -> None:
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
                TranscriptCall(
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
