"""A transcript's calls as the lifecycle's events, numbered, in the order the file tells them.

* the session begins with the event that describes it (`description`);
* each call is a Requested event at its request time, with the tier the
  policy gives; a Started event at its start when the transcript records one,
  else at the request time, for every call that ran; and its end;
* a call without an end stays in flight (requested, or started);
* the invocation id is ``<session>/<the transcript's own call id>``;
* a Completed receipt's metadata keeps the source format, the original ids
  and the call's capabilities, as strings; ``recoverable`` is true unless the
  format says otherwise;
* an end stamped before its request (a skewed clock) is moved to the request time.

Each event takes the place in the session of the line that tells it: a start
the transcript does not record is told by the call's end, and goes just before
it. So the events of a file's first lines are the first events of the whole
file's, and a file that grows adds events after the ones it gave before.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from functools import cache
from typing import Any

from returns.result import Success

from ...core.lifecycle.events import (
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolReceipt,
)
from ...core.lifecycle.state import ToolState
from ...core.replay.fold import fold_events
from ...core.replay.projection import ToolProjector
from ...core.tools.capability import ToolCapability
from ...core.tools.ids import InvocationId, SessionId
from ...core.tools.request import ToolRequest
from .calls import ORIGIN, Call, Ending, Position, Transcript, Unreadable
from .description import description_event
from .policy import Policy

Staged = tuple[tuple[Position, int], datetime, object, Call | None]


def stage(
    transcript: Transcript,
    session_id: SessionId,
    policy: Policy,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[StoredEvent], ToolState]:
    """The session's events and the state they fold to, checked by a strict fold: a
    transcript whose events the lifecycle refuses is an error naming the call."""
    about = transcript.about
    staged: list[Staged] = [
        (((-1,), 0), about.started_at or ORIGIN, description_event(transcript.format, about), None)
    ]
    total = len(transcript.calls)
    for done, call in enumerate(transcript.calls, start=1):
        try:
            _call_events(transcript, call, session_id, policy, staged)
        except (ValueError, TypeError) as error:
            raise Unreadable(call.where, f"call {call.call_id}: {error}") from None
        if progress is not None and (done % 1000 == 0 or done == total):
            progress(done, total)
    staged.sort(key=lambda item: item[0])
    events = [
        StoredEvent(session_id=session_id, sequence=number, recorded_at=at, event=event)
        for number, (_, at, event, _) in enumerate(staged, start=1)
    ]
    calls = [call for *_, call in staged]
    # Let the staging tuples go before the fold: on a large transcript they are millions of
    # objects the collector would otherwise walk again and again while the fold allocates.
    staged.clear()
    folded = fold_events(ToolProjector(), events)
    if not isinstance(folded, Success):
        refused = folded.failure()
        culprit = calls[refused.sequence - 1]
        raise Unreadable(culprit.where if culprit is not None else "", refused.message)
    return events, folded.unwrap().state


def _call_events(
    transcript: Transcript, call: Call, session_id: SessionId, policy: Policy, staged: list[Staged]
) -> None:
    invocation = InvocationId(f"{session_id}/{call.call_id}")
    assignment = policy(call.tool_name, call.arguments)
    request = ToolRequest(tool_name=call.tool_name, arguments=call.arguments)
    staged.append(
        (
            (call.position, 0),
            call.requested_at,
            ToolInvocationRequestedEvent(
                invocation_id=invocation,
                tool_name=call.tool_name,
                tier=assignment.tier,
                request=request,
            ),
            call,
        )
    )
    end = call.end
    ran = end is not None and end.kind is not Ending.REJECTED
    if call.started_at is not None or ran:
        started = max(call.started_at or call.requested_at, call.requested_at)
        # An unrecorded start is told by the call's end: it goes right before it.
        where = call.started_position if call.started_at is not None else None
        key = (where, 1) if where is not None else (end.position, 1)  # type: ignore[union-attr]
        staged.append((key, started, ToolExecutionStartedEvent(invocation_id=invocation), call))
    if end is not None:
        at = max(end.at, call.requested_at)
        event = _end_event(transcript, call, invocation, assignment.capabilities)
        staged.append(((end.position, 2), at, event, call))


@cache
def _named(capabilities: frozenset[ToolCapability]) -> str:
    """Capabilities as the receipt's metadata writes them (a policy gives few sets)."""
    return ",".join(sorted(c.value for c in capabilities))


def _end_event(
    transcript: Transcript, call: Call, invocation: InvocationId, capabilities: Any
) -> object:
    end = call.end
    assert end is not None
    if end.kind is Ending.REJECTED:
        return ToolExecutionRejectedEvent(invocation_id=invocation, reason=end.reason or "rejected")
    if end.kind is Ending.FAILED:
        return ToolExecutionFailedEvent(
            invocation_id=invocation, reason=end.reason or "failed", recoverable=end.recoverable
        )
    metadata = {
        "source_format": transcript.format,
        "call_id": call.call_id,
        "tool_name": call.tool_name,
        **end.metadata,
    }
    if capabilities:
        metadata["capabilities"] = _named(capabilities)
    return ToolExecutionCompletedEvent(
        invocation_id=invocation,
        receipt=ToolReceipt(output=end.output, exit_code=end.exit_code, metadata=metadata),
    )
