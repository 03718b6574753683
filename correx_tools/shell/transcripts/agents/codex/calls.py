"""OpenAI Codex CLI rollout files (``~/.codex/sessions/YYYY/MM/DD/rollout-*.jsonl``).

One ``{timestamp, type, payload}`` record a line, the first a ``session_meta``.

* a ``response_item`` whose payload is a ``function_call`` (``arguments`` a
  JSON string), a ``custom_tool_call`` (arguments ``{"input": …}``) or a
  ``local_shell_call`` (tool ``local_shell``, arguments its ``action``) is a
  request;
* a ``function_call_output`` or ``custom_tool_call_output`` with the same
  ``call_id`` ends it. Codex does not write whether it succeeded, so its text
  says: ``Exit code: N`` (or JSON with ``metadata.exit_code``, or the
  ``exec_command`` header's ``Process exited with code N``) completed with
  N; ``… rejected by user``, a risk refusal, arguments that did not parse or
  an unsupported call rejected; a patch that failed verification, or
  ``aborted``, failed; anything else completed, with no exit code (an output
  that states none: a command still running, a tool that runs none).

``event_msg`` records echo the same calls (``exec_command_end`` …): detail,
never calls. A ``compacted`` record's ``replacement_history`` is not imported.

The conversation around the calls (`talk`): a ``response_item`` user ``message``
is a prompt, but for those Codex writes itself (its instructions and environment:
text that opens with ``<``, or ``# AGENTS.md instructions``), and the ``event_msg``
``user_message`` that echoes it is not read (so a file cut anywhere gives the first
events of the whole file's); a ``response_item`` assistant ``message`` is the assistant's words and
a ``reasoning`` item's summary (and its text, when kept) its reasoning, with the model
of the last ``turn_context``; a ``token_count``'s ``total_token_usage`` is the session's
running total, so each one counts what it adds to the one before (a repeated one adds
nothing, and the session's tokens are its last total). Codex counts cached input
tokens among its ``input_tokens``: they are read as ``cache_read``, the rest as
``input``; it records no tokens written to a cache.
"""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime
from typing import Any

import re2

from .....core.lifecycle.description import About
from ...common.lines import is_json, strict_value
from ...common.outcomes import completed, exit_code_in, failed, rejected
from ...common.pairing import Pairing
from ...common.values import must_be, text_of, utc_time
from ...errors import Unreadable
from ...model import End, Position, Transcript, TranscriptCall
from .signs import FORMAT
from .talk import CodexTalk

_REQUESTS = frozenset({"function_call", "custom_tool_call", "local_shell_call"})
_RESULTS = frozenset({"function_call_output", "custom_tool_call_output"})
_EXIT_CODE = re2.compile(r"\AExit code: (-?[0-9]{1,9})\b")
# ``exec_command``'s header (codex-rs unified exec, format_response): its lines before
# ``Output:``, the exit code among them once the process has exited.
_EXITED = re2.compile(
    r"\A(?:Chunk ID: [^\n]{0,200}\n)?Wall time: [^\n]{0,200}\n"
    r"Process exited with code (-?[0-9]{1,9})\n"
)
_REJECTED = (
    "exec command rejected by user",
    "patch rejected by user",
    "rejected by user",
    "This action was rejected due to unacceptable risk",
    "failed to parse function arguments",
    "unsupported call:",
    "unsupported custom tool call:",
)
_FAILED = ("apply_patch verification failed",)
_ABORTED = re2.compile(r"(?:\A|\n)aborted(?: by user)?(?: after [0-9.]+s)?\s*\z")


def read(records: Iterable[tuple[int, Any]], name: str) -> Transcript:
    """The calls of a rollout file (its records, with their line numbers)."""
    calls = Pairing()
    about = About()
    talk = CodexTalk()
    for index, (line, record) in enumerate(records):
        where = f"line {line}"
        must_be(record, dict, where, "a record")
        payload = record.get("payload")
        if not isinstance(payload, dict):
            continue
        kind = record.get("type")
        if kind == "session_meta" and index == 0:
            about = _about(payload, where)
        elif kind in ("event_msg", "turn_context") or (
            kind == "response_item" and payload.get("type") in ("message", "reasoning")
        ):
            talk.read(kind, payload, record.get("timestamp"), (index,), where)
        elif kind == "response_item":
            item = payload.get("type")
            if not isinstance(item, str):
                continue
            if item in _REQUESTS:
                at = utc_time(record.get("timestamp"), f"{where}: timestamp")
                calls.request(_request(payload, item, at, (index,), where))
            elif item in _RESULTS:
                call_id = must_be(payload.get("call_id"), str, where, "an output's call_id")
                call = calls.ended(call_id, where)
                at = utc_time(record.get("timestamp"), f"{where}: timestamp")
                call.end = _end(payload.get("output"), at, (index,), call_id, where)
    return Transcript(
        FORMAT, about.agent_session_id or name, calls.calls(), about=about, talk=talk.steps()
    )


def _about(payload: dict[str, Any], where: str) -> About:
    session = payload.get("id")
    cwd = payload.get("cwd")
    started = payload.get("timestamp")
    return About(
        agent_session_id=session if isinstance(session, str) and session else None,
        started_at=utc_time(started, f"{where}: payload.timestamp") if started else None,
        cwd=cwd if isinstance(cwd, str) and cwd else None,
    )


def _request(
    payload: dict[str, Any], item: str, at: datetime, position: Position, where: str
) -> TranscriptCall:
    if item == "local_shell_call":
        call_id = payload.get("call_id") or payload.get("id")
        tool = "local_shell"
        arguments = must_be(payload.get("action", {}), dict, where, "a local_shell_call's action")
    else:
        call_id = payload.get("call_id")
        tool = must_be(payload.get("name"), str, where, f"a {item}'s name")
        if item == "custom_tool_call":
            arguments = {"input": must_be(payload.get("input"), str, where, "the input")}
        else:
            arguments = _arguments(payload.get("arguments", "{}"), where)
    return TranscriptCall(
        call_id=must_be(call_id, str, where, f"a {item}'s call_id"),
        tool_name=tool,
        arguments=arguments,
        requested_at=at,
        position=position,
        where=where,
    )


def _arguments(text: object, where: str) -> dict[str, Any]:
    """A function call's arguments; text that is no JSON object is kept as it was written
    (Codex answers such a call with an error, and so it is rejected)."""
    written: str = must_be(text, str, where, "a function_call's arguments")
    if not written.strip():
        return {}
    if not is_json(written):
        return {"unparsed_arguments": written}
    value = strict_value(written, f"{where}: arguments")
    return value if isinstance(value, dict) else {"arguments": value}


def _end(output: object, at: datetime, position: Position, call_id: str, where: str) -> End:
    text = output if isinstance(output, str) else _text(output, where)
    metadata = {"call_id": call_id, "line": where}
    if text.startswith(_REJECTED):
        return rejected(at, position, text, metadata)
    if text.startswith(_FAILED) or _ABORTED.search(text):
        return failed(at, position, text, metadata)
    code = exit_code_in(text, _EXIT_CODE)
    if code is None:
        code = exit_code_in(text, _EXITED)
    if code is None and text.startswith("{") and is_json(text):
        value = strict_value(text, where)
        details = value.get("metadata") if isinstance(value, dict) else None
        found = details.get("exit_code") if isinstance(details, dict) else None
        code = found if type(found) is int else None
    return completed(at, position, text, metadata, code)


def _text(output: object, where: str) -> str:
    """The text of an output Codex wrote as an object or a list of content items."""
    if isinstance(output, dict):
        output = output.get("content", output)
    value = text_of(output)
    if isinstance(value, list):  # input_text / output_text items
        value = "\n".join(
            item["text"]
            for item in value
            if isinstance(item, dict) and isinstance(item.get("text"), str)
        )
    if not isinstance(value, str):
        raise Unreadable(where, "a call's output must be text")
    return value
