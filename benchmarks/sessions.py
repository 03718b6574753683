"""Synthetic sessions for the benchmarks: every invocation requested, started, then ended."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, datetime, timedelta

from correx_tools import (
    InvocationId,
    SessionId,
    StoredEvent,
    Tier,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolReceipt,
    ToolRequest,
)

START = datetime(2026, 1, 1, tzinfo=UTC)
REQUEST = ToolRequest(tool_name="read_file", arguments={"path": "src/app.py"})
RECEIPT = ToolReceipt(output={"bytes": 1834}, exit_code=0)


def _ending(invocation: InvocationId, number: int) -> object:
    """Completed, but one in ten failed and one in twenty-five rejected."""
    if number % 10 == 7:
        return ToolExecutionFailedEvent(invocation_id=invocation, reason="exit 1", recoverable=True)
    if number % 25 == 3:
        return ToolExecutionRejectedEvent(invocation_id=invocation, reason="declined")
    return ToolExecutionCompletedEvent(invocation_id=invocation, receipt=RECEIPT)


def thirds(invocation: InvocationId, number: int) -> object:
    """Completed, failed and rejected in turn: the mix the time-travel issue saw fold slowly."""
    if number % 3 == 1:
        return ToolExecutionFailedEvent(invocation_id=invocation, reason="exit 1", recoverable=True)
    if number % 3 == 2:
        return ToolExecutionRejectedEvent(invocation_id=invocation, reason="declined")
    return ToolExecutionCompletedEvent(invocation_id=invocation, receipt=RECEIPT)


def session(
    events: int,
    *,
    open_at_once: int = 1,
    name: str = "bench",
    ending: Callable[[InvocationId, int], object] = _ending,
) -> list[StoredEvent]:
    """``events`` stored events: invocations in waves of ``open_at_once``, each requested,
    started, then ended by ``ending`` (about 3 events an invocation)."""
    session_id = SessionId(name)
    payloads: list[object] = []
    number = 0
    while len(payloads) < events:
        wave = [InvocationId(f"{name}-{number + i}") for i in range(open_at_once)]
        payloads += [
            ToolInvocationRequestedEvent(
                invocation_id=i, tool_name="read_file", tier=Tier.AUTO, request=REQUEST
            )
            for i in wave
        ]
        payloads += [ToolExecutionStartedEvent(invocation_id=i) for i in wave]
        payloads += [ending(i, number + k) for k, i in enumerate(wave)]
        number += open_at_once
    del payloads[events:]
    step = timedelta(microseconds=1)
    return [
        StoredEvent(session_id=session_id, sequence=s, recorded_at=START + s * step, event=p)
        for s, p in enumerate(payloads, start=1)
    ]
