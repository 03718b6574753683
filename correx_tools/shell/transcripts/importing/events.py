"""A transcript's calls as the lifecycle's events, numbered, in the order the file tells them.

* the session begins with the event that describes it (`description`), then, where the
  harness wrote how the run ended, the event that says so (`outcome`);
* each call is a Requested event at its request time, with the tier the
  tiering gives (`tiers`); a Started event at its start when the transcript records one,
  else at the request time, for every call that ran; and its end;
* a call without an end stays in flight (requested, or started);
* the invocation id is ``<session>/<the transcript's own call id>``;
* a Completed receipt's metadata keeps the source format, the original ids
  and the call's capabilities, as strings; ``recoverable`` is true unless the
  format says otherwise;
* a completed call whose transcript records no exit code has the receipt's
  ``exit_code`` 0 and ``exit_code_known`` ``"false"`` in its metadata: the 0 is
  only there because a receipt must hold one;
* an end stamped before its request (a skewed clock) is moved to the request time;
* a step whose time the transcript does not record takes the nearest recorded
  one (the one before it in the file, or the first after it); where the
  transcript records no time for any step, the derived times only keep the
  order, and the description says so (``"times": "none"``);
* a value too large for an event is cut to fit, and the call says so (`cutting`);
* a transcript that holds no call yet and records no time gives no events (not even its
  conversation: what it says before its first call, with no time, waits for it);
* the conversation around the calls (`TalkStep`: prompts, the assistant's words, reasoning,
  tokens) is an event each (`conversation_event`) at its place, unless
  ``conversation`` is false; a step of it with no recorded time takes the nearest one,
  as a call's does.

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

from ....core.lifecycle.conversation import conversation_event
from ....core.lifecycle.description import description_event
from ....core.lifecycle.events import (
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolReceipt,
)
from ....core.lifecycle.outcome import outcome_event
from ....core.lifecycle.state import ToolState
from ....core.replay.fold import fold_events
from ....core.replay.projection import ToolProjector
from ....core.tools.capability import ToolCapability
from ....core.tools.ids import InvocationId, SessionId
from ....core.tools.request import ToolRequest
from ..errors import Unreadable
from ..model import ORIGIN, Ending, Position, Transcript, TranscriptCall
from .cutting import CUT, fitted
from .options import ImportOptions
from .tiers import Tiering, table_tiering

EXIT_CODE_KNOWN = "exit_code_known"
"""The receipt's metadata key that is ``"false"`` when the transcript records no exit code."""


class EventColumns:
    """The session's events before they are numbered, as columns: each one's place in the
    file, time, event, call (``None`` for the conversation) and whether the transcript
    records its time. Columns rather than a tuple per event: on a large transcript those
    tuples were a million more objects for the collector to walk while the events grew."""

    __slots__ = ("calls", "events", "places", "recorded", "times")

    def __init__(self) -> None:
        self.places: list[tuple[Position, int]] = []
        self.times: list[datetime] = []
        self.events: list[object] = []
        self.calls: list[TranscriptCall | None] = []
        self.recorded: list[bool] = []

    def add(
        self,
        place: tuple[Position, int],
        at: datetime,
        event: object,
        call: TranscriptCall | None,
        recorded: bool,
    ) -> None:
        """One more event."""
        self.places.append(place)
        self.times.append(at)
        self.events.append(event)
        self.calls.append(call)
        self.recorded.append(recorded)

    def in_order(self) -> None:
        """Each column put in the order of the places (a stable sort: equal places keep the
        order they were added in)."""
        order = sorted(range(len(self.places)), key=self.places.__getitem__)
        self.places = [self.places[i] for i in order]
        self.times = [self.times[i] for i in order]
        self.events = [self.events[i] for i in order]
        self.calls = [self.calls[i] for i in order]
        self.recorded = [self.recorded[i] for i in order]


def transcript_events(
    transcript: Transcript,
    session_id: SessionId,
    options: ImportOptions,
    progress: Callable[[int, int], None] | None = None,
) -> tuple[list[StoredEvent], ToolState]:
    """The session's events and the state they fold to, checked by a strict fold: a
    transcript whose events the lifecycle refuses is an error naming the call. Of the
    ``options``, the tiering gives each call its tier (``None``: the capability
    table's, `tiers.table_tiering`); ``conversation`` false leaves the conversation
    around the calls out."""
    columns = EventColumns()
    if options.conversation:
        for step in transcript.talk:
            event = conversation_event(step.message)
            at = ORIGIN if step.at is None else step.at
            columns.add((step.position, 0), at, event, None, step.at is not None)
    total = len(transcript.calls)
    tiering = options.tiering or table_tiering(transcript.format)
    for done, call in enumerate(transcript.calls, start=1):
        try:
            _call_events(transcript, call, session_id, tiering, columns)
        except (ValueError, TypeError) as error:
            raise Unreadable(call.where, f"call {call.call_id}: {error}") from None
        if progress is not None and (done % 1000 == 0 or done == total):
            progress(done, total)
    columns.in_order()
    first = _times(columns)
    about = transcript.about
    began = about.started_at or transcript.first_time
    if not transcript.calls and first is None and began is None:
        # Nothing to show, and no time yet to stamp the description with (an older Goose
        # file before its first message): no session until the file says more. Written
        # now, the description would differ from the one the grown file gives.
        return [], ToolState.empty()
    recorded = first is not None or (not transcript.calls and began is not None)
    description = description_event(transcript.format, about, times_recorded=recorded)
    opened = began or first or ORIGIN
    events = [StoredEvent(session_id=session_id, sequence=1, recorded_at=opened, event=description)]
    if transcript.outcome is not None:  # right after the description: read with it
        events.append(StoredEvent(session_id=session_id, sequence=2, recorded_at=opened,
                                  event=outcome_event(transcript.outcome)))  # fmt: skip
    events += [
        StoredEvent(session_id=session_id, sequence=number, recorded_at=at, event=event)
        for number, (at, event) in enumerate(
            zip(columns.times, columns.events, strict=True), start=len(events) + 1
        )
    ]
    calls = [None] * (len(events) - len(columns.calls)) + columns.calls
    del columns  # they go before the fold allocates
    folded = fold_events(ToolProjector(), events)
    if not isinstance(folded, Success):
        refused = folded.failure()
        culprit = calls[refused.sequence - 1]
        raise Unreadable(culprit.where if culprit is not None else "", refused.message)
    return events, folded.unwrap().state


def _times(columns: EventColumns) -> datetime | None:
    """Give each step whose time is not recorded the nearest recorded one, in place: the
    one before it in the file, or (before the first) the first after it; and keep each
    call's start and end at or after its request (a skewed clock). The first recorded time,
    or ``None`` when no step records one (the derived times are then kept: they only keep
    the order)."""
    times = columns.times
    first = next((at for at, known in zip(times, columns.recorded, strict=True) if known), None)
    if first is None:
        # No time recorded at all: the derived times only keep the order, and a step of the
        # conversation (which derives none) takes the one of the step before it.
        last = ORIGIN
        for index, stamped in enumerate(times):
            last = times[index] = max(last, stamped)
        return None
    if all(columns.recorded):
        return first
    requested: dict[int, datetime] = {}
    last = first
    steps = zip(columns.places, times, columns.calls, columns.recorded, strict=True)
    for index, (key, stamped, call, recorded) in enumerate(steps):
        if recorded:
            last = stamped
        at = last
        if call is not None:
            if key[1] == 0:
                requested[id(call)] = at
            else:
                at = max(at, requested.get(id(call), at))
        times[index] = at
    return first


def _call_events(
    transcript: Transcript,
    call: TranscriptCall,
    session_id: SessionId,
    tiering: Tiering,
    columns: EventColumns,
) -> None:
    invocation = InvocationId(f"{session_id}/{call.call_id}")
    assignment = tiering(call.tool_name, call.arguments)

    def requested(arguments: Any, _: tuple[str, ...]) -> object:
        request = ToolRequest(tool_name=call.tool_name, arguments=arguments)
        return ToolInvocationRequestedEvent(
            invocation_id=invocation, tool_name=call.tool_name, tier=assignment.tier,
            request=request,
        )  # fmt: skip

    event, cut = fitted(call.arguments, "arguments", requested, session_id, inline=True,
                        beside=2 * len(call.tool_name) + len(invocation))  # fmt: skip
    columns.add((call.position, 0), call.requested_at, event, call, call.recorded)
    end = call.end
    ran = end is not None and end.kind is not Ending.REJECTED
    if call.started_at is not None or ran:
        started = max(call.started_at or call.requested_at, call.requested_at)
        # An unrecorded start is told by the call's end: it goes right before it.
        where = call.started_position if call.started_at is not None else None
        key = (where, 1) if where is not None else (end.position, 1)  # type: ignore[union-attr]
        timed = call.started_recorded if call.started_at is not None else call.recorded
        columns.add(key, started, ToolExecutionStartedEvent(invocation_id=invocation), call, timed)
    if end is not None:
        at = max(end.at, call.requested_at)
        event = _end_event(transcript, call, session_id, assignment.capabilities, cut)
        columns.add((end.position, 2), at, event, call, end.recorded)


@cache
def _named(capabilities: frozenset[ToolCapability]) -> str:
    """Capabilities as the receipt's metadata writes them (a tiering gives few sets)."""
    return ",".join(sorted(c.value for c in capabilities))


def _end_event(
    transcript: Transcript,
    call: TranscriptCall,
    session: SessionId,
    capabilities: Any,
    cut: tuple[str, ...],
) -> object:
    """The event that ends the call (``cut``: what was cut of its arguments, for its
    receipt to say)."""
    end = call.end
    assert end is not None
    invocation = InvocationId(f"{session}/{call.call_id}")
    if end.kind is Ending.REJECTED:
        event, _ = fitted(
            end.reason or "rejected", "reason",
            lambda reason, _: ToolExecutionRejectedEvent(invocation_id=invocation, reason=reason),
            session, inline=True,
        )  # fmt: skip
        return event
    if end.kind is Ending.FAILED:
        event, _ = fitted(
            end.reason or "failed", "reason",
            lambda reason, _: ToolExecutionFailedEvent(
                invocation_id=invocation, reason=reason, recoverable=end.recoverable
            ),
            session, inline=True,
        )  # fmt: skip
        return event
    metadata = {
        "source_format": transcript.format,
        "call_id": call.call_id,
        "tool_name": call.tool_name,
        **end.metadata,
    }
    if end.exit_code is None:
        metadata[EXIT_CODE_KNOWN] = "false"
    if capabilities:
        metadata["capabilities"] = _named(capabilities)
    if cut:
        metadata[CUT] = "; ".join(cut)

    def completed(output: Any, notes: tuple[str, ...]) -> object:
        noted = metadata if not notes else {**metadata, CUT: "; ".join([*cut, *notes])}
        receipt = ToolReceipt(output=output, exit_code=end.exit_code or 0, metadata=noted)
        return ToolExecutionCompletedEvent(invocation_id=invocation, receipt=receipt)

    beside = len(invocation) + sum(map(len, metadata)) + sum(map(len, metadata.values()))
    event, _ = fitted(end.output, "output", completed, session, inline=False, beside=beside)
    return event
