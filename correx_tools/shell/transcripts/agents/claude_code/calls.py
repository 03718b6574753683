"""Claude Code session files (``~/.claude/projects/<dir>/<session>.jsonl``): one record a line.

* an assistant record's ``tool_use`` block is a request (``input`` is the arguments);
* a ``PreToolUse`` hook record or a ``bash_progress`` record for it, when there is
  one, is when the call started;
* a user record's ``tool_result`` block, paired by ``tool_use_id``, ends it:
  rejected when it is the fixed "doesn't want to proceed" answer, completed with
  exit code N when it is an error whose text starts ``Exit code N`` (the command
  ran and exited so), failed when it is any other error, completed otherwise.
  Claude Code records an exit code only as that text: a ``Bash`` result whose
  first line is ``Exit code N`` has exit code N, error or not; any other result
  (a ``Read``, an ``Edit``, a command's output that states none) has none.

The conversation around the calls: a user record's text (a string, or its ``text``
blocks) is a prompt, except a record Claude Code writes itself (``isMeta``, a
compaction's summary, the "[Request interrupted by user…]" marker); an assistant
record's ``text`` block is the assistant's words and its ``thinking`` block its
reasoning, with the message's ``model``; a message's ``usage`` is read once per
message ``id`` (Claude Code writes a message's blocks as a record each, each repeating
it), from its first record, as ccusage counts it.

A subagent's file (``isSidechain``, ``agentId``) is a session of its own,
``<session>/agent-<agentId>``, whose description names the session that
started it; the ``Task`` call that started it names it in its receipt's
metadata (``subagent_session``, from the result's ``toolUseResult.agentId``).
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

from .....core.lifecycle.conversation import AssistantText, Prompt, Reasoning, TokenUsage, Usage
from .....core.lifecycle.description import About
from .....core.report.tool_views import SUBAGENT_SESSION
from ...common.talk import MOST_COUNTED, too_many
from ...common.values import must_be, utc_time
from ...errors import Unreadable
from ...model import TalkStep, Transcript, TranscriptCall
from ..anthropic_messages.calls import result_end
from .signs import FORMAT


def read(records: Iterable[tuple[int, Any]], name: str) -> Transcript:
    """The calls of a Claude Code session file (its records, with their line numbers)."""
    calls: dict[str, TranscriptCall] = {}
    talk: list[TalkStep] = []
    counted: set[str] = set()
    session: str | None = None
    started: datetime | None = None
    cwd: str | None = None
    for index, (line, record) in enumerate(records):
        where = f"line {line}"
        if not isinstance(record, dict):
            raise Unreadable(where, "a record must be a JSON object")
        if session is None and isinstance(record.get("sessionId"), str) and record["sessionId"]:
            # The session's description is its first session record's, whatever comes after.
            session = record["sessionId"]
            if isinstance(record.get("timestamp"), str):
                started = utc_time(record["timestamp"], where)
            if isinstance(record.get("cwd"), str) and record["cwd"]:
                cwd = record["cwd"]
            if record.get("isSidechain") is True and isinstance(record.get("agentId"), str):
                session = f"{session}/agent-{record['agentId']}"
        kind = record.get("type")
        if kind == "assistant":
            _requests(record, index, where, calls)
            _assistant(record, index, where, talk, counted)
        elif kind == "progress":
            _started(record, index, where, calls)
        elif kind == "user":
            _results(record, index, where, calls)
            _prompt(record, index, where, talk)
    parent = session.rpartition("/agent-")[0] if session and "/agent-" in session else None
    about = About(agent_session_id=session, started_at=started, cwd=cwd, parent_session=parent)
    return Transcript(FORMAT, session or name, tuple(calls.values()), about=about, talk=tuple(talk))


_INTERRUPTED = "[Request interrupted by user"


def _time(record: dict[str, Any], where: str) -> datetime | None:
    stamp = record.get("timestamp")
    return None if stamp is None else utc_time(stamp, where)


def _prompt(record: dict[str, Any], index: int, where: str, talk: list[TalkStep]) -> None:
    """A user record's own words: a prompt (not a tool's result, nor a note of Claude
    Code's own)."""
    if record.get("isMeta") is True or record.get("isCompactSummary") is True:
        return
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    if isinstance(content, str):
        text = content
    elif isinstance(content, list):
        text = "\n".join(
            block["text"]
            for block in content
            if isinstance(block, dict)
            and block.get("type") == "text"
            and isinstance(block.get("text"), str)
        )
    else:
        return
    if text.strip() and not text.startswith(_INTERRUPTED):
        talk.append(TalkStep((index, -1), _time(record, where), Prompt(text=text)))


def _assistant(
    record: dict[str, Any], index: int, where: str, talk: list[TalkStep], counted: set[str]
) -> None:
    """An assistant record's words, reasoning and (once per message) tokens."""
    message = record.get("message")
    if not isinstance(message, dict):
        return
    at = _time(record, where)
    model = message.get("model") if isinstance(message.get("model"), str) else None
    if model == "<synthetic>":  # a message Claude Code wrote itself (an API error's)
        model = None
    identifier = message.get("id") if isinstance(message.get("id"), str) else None
    usage = message.get("usage")
    if isinstance(usage, dict) and (identifier is None or identifier not in counted):
        if identifier is not None:
            counted.add(identifier)
        tokens = _tokens(usage, where)
        talk.append(
            TalkStep((index, -1), at, Usage(usage=tokens, model=model, message_id=identifier))
        )
    for number, block in enumerate(_blocks(record)):
        if not isinstance(block, dict):
            continue
        kind = block.get("type")
        if kind == "text" and isinstance(block.get("text"), str) and block["text"].strip():
            talk.append(
                TalkStep((index, number), at, AssistantText(text=block["text"], model=model))
            )
        elif kind == "thinking" and isinstance(block.get("thinking"), str) and block["thinking"]:
            talk.append(
                TalkStep((index, number), at, Reasoning(text=block["thinking"], model=model))
            )


def _tokens(usage: dict[str, Any], where: str) -> TokenUsage:
    counts = []
    for key in ("input_tokens", "output_tokens", "cache_read_input_tokens",
                "cache_creation_input_tokens"):  # fmt: skip
        value = usage.get(key) or 0
        if type(value) is not int or value < 0:
            raise Unreadable(where, f"usage.{key} must be a whole number at least 0")
        if value > MOST_COUNTED:
            raise Unreadable(where, too_many(f"usage.{key}", value))
        counts.append(value)
    return TokenUsage(input=counts[0], output=counts[1], cache_read=counts[2],
                      cache_write=counts[3])  # fmt: skip


def _blocks(record: dict[str, Any]) -> list[Any]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return content if isinstance(content, list) else []


def _requests(
    record: dict[str, Any], index: int, where: str, calls: dict[str, TranscriptCall]
) -> None:
    for number, block in enumerate(_blocks(record)):
        if not isinstance(block, dict) or block.get("type") != "tool_use":
            continue
        call_id = must_be(block.get("id"), str, where, "a tool_use block's id")
        arguments = must_be(block.get("input", {}), dict, where, f"tool_use {call_id}'s input")
        tool = must_be(block.get("name"), str, where, f"tool_use {call_id}'s name")
        known = calls.get(call_id)
        if known is not None:
            # One message may be written over several records: the same block again is no news.
            if known.tool_name != tool or known.arguments != arguments:
                raise Unreadable(where, f"tool_use {call_id} again, with other contents")
            continue
        calls[call_id] = TranscriptCall(
            call_id=call_id,
            tool_name=tool,
            arguments=arguments,
            requested_at=utc_time(record.get("timestamp"), where),
            position=(index, number),
            where=where,
        )


def _started(
    record: dict[str, Any], index: int, where: str, calls: dict[str, TranscriptCall]
) -> None:
    data = record.get("data")
    if not isinstance(data, dict):
        return
    if data.get("hookEvent") == "PreToolUse":
        call = calls.get(str(record.get("toolUseID")))
    elif data.get("type") == "bash_progress":
        call = calls.get(str(record.get("parentToolUseID")))
    else:
        return
    if call is not None and call.started_at is None and call.end is None:
        call.started_at = utc_time(record.get("timestamp"), where)
        call.started_position = (index,)


def _results(
    record: dict[str, Any], index: int, where: str, calls: dict[str, TranscriptCall]
) -> None:
    for number, block in enumerate(_blocks(record)):
        if not isinstance(block, dict) or block.get("type") != "tool_result":
            continue
        call_id = must_be(block.get("tool_use_id"), str, where, "a tool_result's tool_use_id")
        call = calls.get(call_id)
        if call is None:
            raise Unreadable(
                where, f"a tool_result for {call_id}, which no tool_use before it asked for"
            )
        if call.end is not None:
            raise Unreadable(
                where,
                f"a second tool_result for {call_id} (the first is on {call.end.metadata['line']})",
            )
        at = utc_time(record.get("timestamp"), where)
        metadata = {"tool_use_id": call_id, "line": where}
        started = _subagent(record)
        if started is not None:
            metadata[SUBAGENT_SESSION] = started
        call.end = result_end(block, at, (index, number), metadata, call.tool_name)


def _subagent(record: dict[str, Any]) -> str | None:
    """The session of the subagent a ``Task`` result says it ran (its ``agentId``): the
    subagent's file is that session."""
    result = record.get("toolUseResult")
    agent = result.get("agentId") if isinstance(result, dict) else None
    session = record.get("sessionId")
    if isinstance(agent, str) and agent and isinstance(session, str) and session:
        return f"{session}/agent-{agent}"
    return None
