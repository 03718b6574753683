"""A session as a trace: one span per tool invocation under one span for the session.

The spans follow OpenTelemetry's GenAI semantic conventions for tool
execution: each is named ``execute_tool {tool}`` and carries
``gen_ai.operation.name = execute_tool``, ``gen_ai.tool.name``,
``gen_ai.tool.call.id`` and the session as ``gen_ai.conversation.id``; a
failed or rejected call has ``error.type`` and an error status with its
reason. A span starts when its call was requested and ends when the call
ended; a call still in flight ends where the trace was observed (the last
event), marked by ``correx.invocation.status``.

Trace and span ids are derived from the session and invocation ids, so
exporting a session twice gives the same trace. This module is pure: the
encoding into OTLP lives in the shell.
"""

from __future__ import annotations

import hashlib
from datetime import datetime
from typing import NamedTuple

from ..lifecycle.state import ToolState
from ..lifecycle.status import ToolInvocationStatus

AttributeValue = str | bool | int | float


class Span(NamedTuple):
    """One span: ids, name, start and end, attributes, and an error message if it failed."""

    span_id: bytes
    parent_span_id: bytes | None
    name: str
    start: datetime
    end: datetime
    attributes: dict[str, AttributeValue]
    error: str | None


class SessionTrace(NamedTuple):
    """A session's trace: its id, the session's span, and a span per invocation."""

    trace_id: bytes
    session: Span
    invocations: tuple[Span, ...]


_ERRORS = {
    ToolInvocationStatus.FAILED: "tool_failed",
    ToolInvocationStatus.REJECTED: "tool_rejected",
}


def session_trace(session_id: str, state: ToolState, observed_at: datetime) -> SessionTrace:
    """The trace of ``state``, a state of ``session_id`` as it was at ``observed_at``.

    >>> from datetime import UTC
    >>> trace = session_trace("s", ToolState.empty(), datetime(2026, 1, 1, tzinfo=UTC))
    >>> len(trace.trace_id), len(trace.session.span_id), trace.invocations
    (16, 8, ())
    """
    trace_id = _digest("trace", session_id)[:16]
    root_id = _digest("session", session_id)[:8]
    spans = []
    for record in sorted(state.records(), key=lambda r: (r.requested_at, r.invocation_id)):
        ended = record.completed_at
        attributes: dict[str, AttributeValue] = {
            "gen_ai.operation.name": "execute_tool",
            "gen_ai.tool.name": record.tool_name,
            "gen_ai.tool.call.id": record.invocation_id,
            "gen_ai.conversation.id": session_id,
            "correx.invocation.status": record.status.value,
            "correx.tier": record.tier.value,
        }
        error = _ERRORS.get(record.status)
        if error is not None:
            attributes["error.type"] = error
        spans.append(
            Span(
                span_id=_digest("invocation", session_id, record.invocation_id)[:8],
                parent_span_id=root_id,
                name=f"execute_tool {record.tool_name}",
                start=record.requested_at,
                end=max(record.requested_at, ended if ended is not None else observed_at),
                attributes=attributes,
                error=(record.reason or error) if error is not None else None,
            )
        )
    start = min((span.start for span in spans), default=observed_at)
    end = max((span.end for span in spans), default=observed_at)
    root = Span(
        span_id=root_id,
        parent_span_id=None,
        name=f"session {session_id}",
        start=start,
        end=max(end, observed_at, start),
        attributes={"gen_ai.conversation.id": session_id, "correx.invocations": len(spans)},
        error=None,
    )
    return SessionTrace(trace_id=trace_id, session=root, invocations=tuple(spans))


def _digest(kind: str, *parts: str) -> bytes:
    """A stable digest of ``parts`` for ids of ``kind``; the ``\\x00`` keeps parts apart."""
    text = "\x00".join(("correx-tools", kind, *parts))
    return hashlib.sha256(text.encode("utf-8")).digest()
