"""The rows of the export's tables (`tables`), made from a session's catalog row and its
events: each value masked where an agent wrote it, every time a UTC instant.

A call's row is made from its events as the lifecycle's table moves them: the request
opens it, a start starts it, a completion, failure or rejection ends it (an event the
lifecycle would refuse, such as a second end, changes nothing); a call not ended by the
session's last event is written then, ``requested`` or ``started``. Its tokens are its
share of the message that asked for it (`spending`, a first pass over the events), its
cost that share at the prices used. Only the calls still open are held between the two.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from datetime import datetime
from typing import Any

from ...core.catalog.listing import Listed
from ...core.lifecycle.conversation import TokenUsage
from ...core.lifecycle.events import (
    TOOL_EVENT_TYPES,
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolInvocationRequestedEvent,
)
from ...core.lifecycle.status import ToolInvocationStatus
from ...core.lifecycle.transitions import TRANSITIONS
from ...core.replay.pricing import PriceTable, cost_of
from ...core.replay.spending import Spent, spending
from ...core.report.redaction import Redaction
from ...core.tools.json_values import thaw_json
from ..stores.codec.encoding import encode_event

Row = dict[str, Any]


def identity(listed: Listed, redaction: Redaction) -> Row:
    """The columns every table begins with (`tables.IDENTITY`)."""
    project = listed.facts.project
    return {
        "session_id": listed.session_id,
        "machine": listed.machine,
        "user": listed.user,
        "agent": listed.facts.agent,
        "project": None if project is None else redaction.text(project),
    }


def session_row(listed: Listed, redaction: Redaction, prices: PriceTable) -> Row:
    """A session's row of ``sessions/``."""
    facts, counts = listed.facts, listed.counts
    title = facts.title
    return {
        **identity(listed, redaction),
        "title": None if title is None else redaction.text(title),
        "models": json.dumps([redaction.text(m) for m in facts.talk.models], ensure_ascii=False),
        "started": facts.started,
        "ended": facts.ended,
        "events": facts.events,
        "calls": counts.calls,
        "completed": counts.completed,
        "failed": counts.failed,
        "rejected": counts.rejected,
        "open": counts.unfinished,
        "exited_nonzero": counts.exited_nonzero,
        **_tokens(facts.tokens),
        "cost": _cost(facts.spent, prices),
    }


def _tokens(tokens: TokenUsage | None) -> Row:
    if tokens is None:
        return dict.fromkeys(("input_tokens", "output_tokens", "cache_read_tokens",
                              "cache_write_tokens"))  # fmt: skip
    return {
        "input_tokens": tokens.input,
        "output_tokens": tokens.output,
        "cache_read_tokens": tokens.cache_read,
        "cache_write_tokens": tokens.cache_write,
    }


def _cost(spent: Spent | None, prices: PriceTable) -> float | None:
    cost = cost_of(spent, prices)
    return None if cost is None or cost.amount is None else float(cost.amount)


def call_shares(events: Iterable[StoredEvent]) -> dict[str, Spent]:
    """Each call's share of the tokens of the message that asked for it (the first pass)."""
    return spending((stored.sequence, stored.event) for stored in events).calls


def call_rows(
    listed: Listed,
    events: Iterable[StoredEvent],
    shares: dict[str, Spent],
    redaction: Redaction,
    prices: PriceTable,
) -> Iterator[Row]:
    """The session's rows of ``calls/``, each as its call ends (the open ones at the end).

    Each step is the lifecycle's own (`TRANSITIONS`): an event it refuses (a second end, a
    completion never started, an end recorded before its request) changes nothing, so the
    rows count what the session's fold counts."""
    base = identity(listed, redaction)
    status: dict[str, ToolInvocationStatus] = {}
    open_calls: dict[str, Row] = {}
    for stored in events:
        event, at = stored.event, stored.recorded_at
        if not isinstance(event, TOOL_EVENT_TYPES):
            continue
        invocation = event.invocation_id
        moved = TRANSITIONS[(status.get(invocation), type(event))]
        if not isinstance(moved, ToolInvocationStatus):
            continue
        if isinstance(event, ToolInvocationRequestedEvent):
            arguments = redaction.value(thaw_json(event.request.arguments))
            open_calls[invocation] = {
                **base, "invocation_id": invocation, "tool": event.tool_name,
                "status": "requested", "exit_code": None, "requested_at": at,
                "started_at": None, "ended_at": None, "reason": None,
                "arguments": _json(arguments), "output": None,
            }  # fmt: skip
        elif moved is ToolInvocationStatus.STARTED:
            open_calls[invocation]["status"] = "started"
            open_calls[invocation]["started_at"] = at
        else:
            row = open_calls[invocation]
            if at < row["requested_at"]:
                continue  # the lifecycle's time regression: an end before its request
            del open_calls[invocation]
            _end(row, event, at, redaction)
            status[invocation] = moved
            yield _finished(row, shares.get(invocation), prices)
            continue
        status[invocation] = moved
    for row in open_calls.values():
        yield _finished(row, shares.get(row["invocation_id"]), prices)


def _end(row: Row, event: object, at: datetime, redaction: Redaction) -> None:
    row["ended_at"] = at
    match event:
        case ToolExecutionCompletedEvent(receipt=receipt):
            row["status"], row["exit_code"] = "completed", receipt.exit_code
            row["output"] = _json(redaction.value(thaw_json(receipt.output)))
        case ToolExecutionFailedEvent(reason=reason):
            row["status"], row["reason"] = "failed", redaction.short_text(reason)
        case ToolExecutionRejectedEvent(reason=reason):
            row["status"], row["reason"] = "rejected", redaction.short_text(reason)
        case _:
            raise AssertionError(event)


def _finished(row: Row, share: Spent | None, prices: PriceTable) -> Row:
    requested, started, ended = row["requested_at"], row["started_at"], row["ended_at"]
    row["queued_ms"] = _ms(requested, started)
    row["ran_ms"] = _ms(started, ended)
    row.update(_tokens(None if share is None else share.total))
    row["cost"] = _cost(share, prices)
    return row


def _ms(start: datetime | None, end: datetime | None) -> float | None:
    # An end recorded before its start (a clock set back) says no duration: not a negative one.
    if start is None or end is None or end < start:
        return None
    return (end - start).total_seconds() * 1000


def event_row(base: Row, stored: StoredEvent, redaction: Redaction) -> Row:
    """An event's row of ``events/`` (``base``: its session's `identity`)."""
    encoded = encode_event(stored)
    data = redaction.value(json.loads(encoded.data))
    return {**base, "sequence": stored.sequence, "recorded_at": stored.recorded_at,
            "type": encoded.type, "version": encoded.version, "data": _json(data)}  # fmt: skip


def _json(value: Any) -> str:
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
