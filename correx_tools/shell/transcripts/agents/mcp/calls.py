"""MCP traffic: JSON-RPC 2.0 messages one a line, bare or wrapped as ``{ts, direction, message}``.

A ``tools/call`` request is a call; the response with the same id from the
other side ends it: an ``error`` with code -32602 (unknown tool, invalid
arguments) rejected, any other error failed, a result marked ``isError``
failed (MCP records no exit code), any other result completed. A
``notifications/progress`` for the call's progress token says it started; a
``notifications/cancelled`` for it fails it, unless a response still comes.

Ids are per sender and typed (``1`` and ``"1"`` differ): a server's own
request (``sampling/createMessage``, ``ping``) may reuse the id of a client
call still open. A response goes to the most recent open request of its id
from the other side (by ``direction`` where the log has one) whose shape it
fits: a tool result has a ``content`` list. Batches (arrays) are read in order.
Bare traffic has no times: they are derived, one second a line (they keep the
order; the session's description says no time is recorded), and a line without
a ``ts`` among wrapped ones takes the nearest recorded time (`staging`). MCP
records no exit code: a completed call has none.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from .....core.lifecycle.description import About
from ...common.outcomes import completed, failed, rejected
from ...common.pairing import unique_id
from ...common.values import must_be, text_of, utc_time
from ...errors import Unreadable
from ...model import Transcript, TranscriptCall, step_time
from .signs import FORMAT, messages_of, unwrapped

INVALID_PARAMS = -32602


@dataclass(slots=True)
class _Open:
    direction: str | None
    method: str
    call: TranscriptCall | None


def read(records: Iterable[tuple[int, Any]], name: str) -> Transcript:
    """The calls of a traffic log."""
    pending: dict[tuple[str, object], list[_Open]] = {}
    by_token: dict[object, TranscriptCall] = {}
    calls: list[TranscriptCall] = []
    taken: dict[str, int] = {}
    first_time: datetime | None = None
    for index, (line, record) in enumerate(records):
        where = f"line {line}"
        direction, stamp, message = unwrapped(record)
        at = step_time(index) if stamp is None else utc_time(stamp, f"{where}: ts")
        recorded = stamp is not None
        first_time = first_time or (at if recorded else None)
        for number, item in enumerate(messages_of(message)):
            must_be(item, dict, where, "a JSON-RPC message")
            position = (index, number)
            method = item.get("method")
            if isinstance(method, str) and "id" in item:
                call = None
                if method == "tools/call":
                    call = _request(item, at, position, where, taken)
                    call.recorded = recorded
                    calls.append(call)
                    token = _token(item)
                    if token is not None:
                        by_token[token] = call
                pending.setdefault(_key(item["id"], where), []).append(
                    _Open(direction, method, call)
                )
            elif method == "notifications/progress":
                params = item.get("params")
                token = params.get("progressToken") if isinstance(params, dict) else None
                call = by_token.get(token) if isinstance(token, (str, int)) else None
                if call is not None and call.end is None and call.started_at is None:
                    call.started_at, call.started_position = at, position
                    call.started_recorded = recorded
            elif method == "notifications/cancelled":
                _cancel(item, direction, (at, recorded), position, pending)
            elif "id" in item and ("result" in item or "error" in item):
                found = _answered(pending.get(_key(item["id"], where)), direction, item)
                if found is not None and found.call is not None:
                    found.call.end = _end(item, (at, recorded), position, found.call)
    about = About(started_at=first_time)
    return Transcript(FORMAT, name, tuple(calls), about=about)


def _key(request_id: object, where: str) -> tuple[str, object]:
    """Ids as JSON types them: ``1`` and ``"1"`` are two ids."""
    if isinstance(request_id, bool) or not isinstance(request_id, (str, int, float)):
        raise Unreadable(where, "a JSON-RPC id must be a string or a number")
    return type(request_id).__name__, request_id


def _token(item: dict[str, Any]) -> object:
    params = item.get("params")
    meta = params.get("_meta") if isinstance(params, dict) else None
    token = meta.get("progressToken") if isinstance(meta, dict) else None
    return token if isinstance(token, (str, int)) else None


def _request(
    item: dict[str, Any], at: datetime, position: tuple[int, int], where: str, taken: dict[str, int]
) -> TranscriptCall:
    params = must_be(item.get("params"), dict, f"{where}: params", "a tools/call's params")
    raw = item["id"]
    # A string id that reads as a number keeps its quotes: it is not that number's call.
    call_id = f'"{raw}"' if isinstance(raw, str) and raw.lstrip("-").isdigit() else str(raw)
    return TranscriptCall(
        call_id=unique_id(call_id, taken),
        tool_name=must_be(params.get("name"), str, f"{where}: params.name", "the tool's name"),
        arguments=must_be(params.get("arguments") or {}, dict, f"{where}: params", "arguments"),
        requested_at=at,
        position=position,
        where=where,
    )


def _answered(
    opened: list[_Open] | None, direction: str | None, item: dict[str, Any]
) -> _Open | None:
    """The open request a response answers (taken off the list), by the rules above."""
    if not opened:
        return None
    mine = [
        o for o in opened if direction is None or o.direction is None or o.direction != direction
    ]
    result = item.get("result")
    tool_shaped = isinstance(result, dict) and isinstance(result.get("content"), list)
    fitting = [o for o in mine if "error" in item or (o.method == "tools/call") == tool_shaped]
    chosen = (fitting or mine or opened)[-1]
    opened.remove(chosen)
    return chosen


def _cancel(
    item: dict[str, Any],
    direction: str | None,
    when: tuple[datetime, bool],
    position: tuple[int, int],
    pending: dict[tuple[str, object], list[_Open]],
) -> None:
    params = item.get("params")
    request = params.get("requestId") if isinstance(params, dict) else None
    if isinstance(request, bool) or not isinstance(request, (str, int, float)):
        return  # a cancellation of nothing this log can name
    for opened in reversed(pending.get(_key(request, ""), [])):
        call = opened.call
        if (
            call is not None
            and call.end is None
            and (direction is None or opened.direction == direction)
        ):
            reason = str(params.get("reason") or "cancelled")  # type: ignore[union-attr]
            at, recorded = when
            call.end = failed(
                at, position, f"cancelled: {reason}", {"id": call.call_id}, recorded=recorded
            )
            return


def _end(
    item: dict[str, Any],
    when: tuple[datetime, bool],
    position: tuple[int, int],
    call: TranscriptCall,
) -> Any:
    at, recorded = when
    metadata = {"id": call.call_id}
    error = item.get("error")
    if error is not None:
        error = must_be(error, dict, f"{call.where}: error", "an error")
        reason = str(error.get("message") or "error")
        if error.get("code") == INVALID_PARAMS:
            return rejected(at, position, reason, metadata, recorded=recorded)
        return failed(at, position, reason, metadata, recorded=recorded)
    result = must_be(item.get("result"), dict, call.where, "a tools/call result")
    output = text_of(result.get("content"))
    if result.get("isError") is True:
        text = output if isinstance(output, str) else str(output)
        return failed(at, position, text, metadata, recorded=recorded)
    return completed(at, position, output, metadata, recorded=recorded)
