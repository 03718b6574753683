"""Hypothesis strategies and builders shared by the tests."""

from __future__ import annotations

from collections.abc import Sequence
from datetime import UTC, datetime, timedelta

from hypothesis import strategies as st

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

EPOCH = datetime(2026, 1, 1, tzinfo=UTC)
SESSION = SessionId("session-1")

IDS = [InvocationId(f"inv-{i}") for i in range(6)]
invocation_ids = st.sampled_from(IDS)

json_scalars = st.none() | st.booleans() | st.integers(-(10**6), 10**6) | st.text(max_size=8)
json_values = st.recursive(
    json_scalars,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=6,
)


def requested(
    invocation: str, tool: str = "read_file", **arguments: object
) -> ToolInvocationRequestedEvent:
    """A Requested event for ``invocation``."""
    return ToolInvocationRequestedEvent(
        invocation_id=InvocationId(invocation),
        tool_name=tool,
        tier=Tier.AUTO,
        request=ToolRequest(tool_name=tool, arguments=arguments),
    )


def started(invocation: str) -> ToolExecutionStartedEvent:
    """A Started event."""
    return ToolExecutionStartedEvent(invocation_id=InvocationId(invocation))


def completed(
    invocation: str, output: object = "ok", exit_code: int = 0
) -> ToolExecutionCompletedEvent:
    """A Completed event with a small receipt."""
    return ToolExecutionCompletedEvent(
        invocation_id=InvocationId(invocation),
        receipt=ToolReceipt(output=output, exit_code=exit_code),
    )


def failed(
    invocation: str, reason: str = "boom", recoverable: bool = True
) -> ToolExecutionFailedEvent:
    """A Failed event."""
    return ToolExecutionFailedEvent(
        invocation_id=InvocationId(invocation), reason=reason, recoverable=recoverable
    )


def rejected(invocation: str, reason: str = "denied") -> ToolExecutionRejectedEvent:
    """A Rejected event."""
    return ToolExecutionRejectedEvent(invocation_id=InvocationId(invocation), reason=reason)


def stored(
    events: Sequence[object],
    *,
    start: int = 1,
    session: str = SESSION,
    times: Sequence[int] | None = None,
) -> list[StoredEvent]:
    """Number ``events`` from ``start``, one second apart unless ``times`` (seconds) are given."""
    return [
        StoredEvent(
            session_id=SessionId(session),
            sequence=start + i,
            recorded_at=EPOCH + timedelta(seconds=(start + i if times is None else times[i])),
            event=event,
        )
        for i, event in enumerate(events)
    ]


@st.composite
def tool_events(draw: st.DrawFn) -> object:
    """Any tool event for a small pool of ids, legal or not in context; sometimes a foreign one."""
    invocation = draw(invocation_ids)
    kind = draw(
        st.sampled_from(["requested", "started", "completed", "failed", "rejected", "other"])
    )
    match kind:
        case "requested":
            return requested(invocation, tool=draw(st.sampled_from(["read_file", "shell"])))
        case "started":
            return started(invocation)
        case "completed":  # a command that ran may have exited non-zero
            exit_code = draw(st.sampled_from([0, 0, 1, 127]))
            return completed(invocation, output=draw(json_values), exit_code=exit_code)
        case "failed":
            return failed(invocation, recoverable=draw(st.booleans()))
        case "rejected":
            return rejected(invocation)
        case _:
            return {"foreign": draw(st.integers(0, 3))}


@st.composite
def sessions(draw: st.DrawFn, max_size: int = 40, *, clock_skew: bool = False) -> list[StoredEvent]:
    """A numbered session of random (mostly legal-looking) events with non-decreasing times.

    With ``clock_skew`` the recording time may also step back, as a clock that
    was corrected does; an invocation can then end before it was requested.
    """
    events = draw(st.lists(tool_events(), max_size=max_size))
    steps = draw(
        st.lists(
            st.integers(-2 if clock_skew else 0, 3), min_size=len(events), max_size=len(events)
        )
    )
    times, now = [], 0
    for step in steps:
        now += step
        times.append(now)
    return stored(events, times=times)


SECRET = "sk-ant-api03-" + "Zq7_" * 10
"""A key of a shape the redaction knows."""


def planted_secrets() -> list[object]:
    """Events holding secrets of several shapes: a bearer token, a key in a reason, a
    password in a URL, and ``ACME-123456`` (masked only by a caller's own pattern)."""
    return [
        requested("a", tool="shell", command=f"curl -H 'Authorization: Bearer {SECRET}'"),
        started("a"),
        failed("a", reason=f"401 for key {SECRET}"),
        requested("b", tool="web_fetch", url="https://bob:hunter2hunter2@example.com/x"),
        rejected("b", reason="ticket ACME-123456 is private"),
    ]
