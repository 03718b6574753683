"""OpenCode sessions as ``opencode export <session id>`` writes them: ``{info, messages}``.

Each message is ``{info, parts}``; a part of ``type: "tool"`` is one call, a
record OpenCode rewrites in place as the call goes on (no pairing): its
``state.status`` is ``pending`` (not started: in flight), ``running`` (started
at ``time.start``: in flight), ``completed`` (a shell's exit code is
``metadata.exit``) or ``error`` — rejected when the user refused the
permission, failed otherwise (``Tool execution aborted`` included). A call
of an unknown tool, or with arguments that did not validate, OpenCode
rewrites into the tool ``invalid``: it is rejected, under the name the model
used (``state.input.tool``). Times are milliseconds; a call is asked for when
its message was created (a message without that time: when the call started,
else the nearest recorded time, `staging`). Only a shell's ``metadata.exit`` is
an exit code: any other completed call has none.

The conversation around the calls (`talk`): a user message's ``text`` parts are
a prompt, an assistant's its words and its ``reasoning`` parts its reasoning, with the
message's ``modelID``; a ``synthetic`` part is OpenCode's own. Its tokens are counted per
step, as OpenCode records each model call: each ``step-finish`` part's ``tokens`` (a
message's ``info.tokens`` holds only its last step's), and a message with no finished
step yet, its ``info.tokens`` when they are not all 0. OpenCode's ``input`` leaves out
the cache's ``read`` and ``write``; its ``reasoning`` tokens are output.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import datetime
from typing import Any

from .....core.lifecycle.description import About
from ...common.outcomes import completed, epoch_time, failed, rejected
from ...common.talk import Talk
from ...common.values import must_be
from ...model import ORIGIN, End, Ending, Position, Transcript, TranscriptCall
from .signs import FORMAT
from .talk import talk_in

_INVALID = "invalid"
_REFUSED = "The user rejected permission"


def read(document: dict[str, Any], name: str) -> Transcript:
    """The calls of an exported session."""
    info = document["info"]
    calls = []
    talk = Talk()
    for index, message in enumerate(document["messages"]):
        where = f"$.messages[{index}]"
        must_be(message, dict, where, "a message")
        details = must_be(message.get("info"), dict, f"{where}.info", "a message's info")
        created = _stamp(details.get("time"), "created", f"{where}.info.time")
        parts = must_be(message.get("parts", []), list, f"{where}.parts", "the parts")
        talk_in(details, parts, index, where, created, talk=talk)
        for number, part in enumerate(parts):
            if isinstance(part, dict) and part.get("type") == "tool":
                calls.append(_call(part, created, (index, number), f"{where}.parts[{number}]"))
    about = About(
        agent_session_id=info["id"],
        started_at=_stamp(info.get("time"), "created", "$.info.time"),
        cwd=info.get("directory") if isinstance(info.get("directory"), str) else None,
        title=info.get("title") if isinstance(info.get("title"), str) else None,
    )
    return Transcript(FORMAT, info["id"], tuple(calls), about=about, talk=tuple(talk.steps))


def _stamp(times: Any, key: str, where: str) -> datetime | None:
    value = times.get(key) if isinstance(times, dict) else None
    return None if value is None else epoch_time(value, f"{where}.{key}", milliseconds=True)


def _call(
    part: dict[str, Any], created: datetime | None, position: Position, where: str
) -> TranscriptCall:
    state = must_be(part.get("state"), dict, f"{where}.state", "a tool part's state")
    arguments = must_be(state.get("input", {}), dict, f"{where}.state.input", "the input")
    tool = must_be(part.get("tool"), str, f"{where}.tool", "the tool")
    if tool == _INVALID and isinstance(arguments.get("tool"), str):
        tool = arguments["tool"]  # the name the model asked for
    started = _stamp(state.get("time"), "start", f"{where}.state.time")
    requested = created or started
    call = TranscriptCall(
        call_id=must_be(part.get("callID"), str, f"{where}.callID", "a callID"),
        tool_name=tool,
        arguments=arguments,
        requested_at=requested or ORIGIN,
        position=position,
        where=where,
        recorded=requested is not None,
    )
    ended = _stamp(state.get("time"), "end", f"{where}.state.time")
    end = _end(part, state, ended or started or call.requested_at, position)
    call.end = end if end is None or ended or started else replace(end, recorded=False)
    # A refused call never ran, though OpenCode stamps when it asked for permission.
    if started is not None and (call.end is None or call.end.kind is not Ending.REJECTED):
        call.started_at, call.started_position = started, position
    return call


def _end(
    part: dict[str, Any], state: dict[str, Any], at: datetime, position: Position
) -> End | None:
    status = state.get("status")
    metadata = {"call_id": str(part.get("callID")), "part_id": str(part.get("id"))}
    details = state.get("metadata")
    details = details if isinstance(details, dict) else {}
    if part.get("tool") == _INVALID:
        reason = str(state.get("output") or state.get("error") or "invalid arguments")
        return rejected(at, position, reason, metadata)
    if status == "completed":
        code = details.get("exit")
        return completed(
            at, position, state.get("output"), metadata, code if type(code) is int else None
        )
    if status == "error":
        error = str(state.get("error") or "error")
        if error.startswith(_REFUSED):
            return rejected(at, position, error, metadata)
        return failed(at, position, error, metadata)
    return None  # pending, running: not over
