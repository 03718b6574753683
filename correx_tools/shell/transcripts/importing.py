"""Importing a transcript: read it, recognise its format, turn its calls into the
lifecycle's events, check them, and write them as one session, all or nothing.

The mapping rules (written out in ``docs/transcripts.md``):

* each call is a Requested event at its request time, with the tier the
  policy gives; a Started event at its start when the transcript records one,
  else at the request time, for every call that ran; and its end;
* a call without an end stays in flight (requested, or started);
* the invocation id is ``<session>/<the transcript's own call id>``, so ids are
  the same on every import and unique across sessions;
* a Completed receipt's metadata keeps the source format, the original ids and
  the call's capabilities, as strings; its output keeps the result as JSON
  (text stays text); ``recoverable`` is true unless the format says otherwise;
* an end stamped before its request (a skewed clock) is moved to the request time.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from typing import Any, final

from returns.result import Failure, Result, Success

from ...core.lifecycle.events import (
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolReceipt,
)
from ...core.lifecycle.status import ToolInvocationStatus
from ...core.replay.fold import fold_events
from ...core.replay.projection import ToolProjector
from ...core.tools.ids import InvocationId, SessionId
from ...core.tools.request import ToolRequest
from ..stores.port import EventStore, StoreReadError
from . import claude_code, messages, openhands, swe_agent
from .calls import Call, Ending, Position, Transcript, TranscriptError, Unreadable
from .policy import Policy, default_policy
from .reading import parse

FORMATS = (
    claude_code.FORMAT,
    openhands.FORMAT,
    swe_agent.FORMAT,
    messages.OPENAI,
    messages.ANTHROPIC,
)
"""The formats `import_transcript` reads (``format="auto"`` recognises each)."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class TranscriptImport:
    """What an import did: the session, its calls by final status, and the events written.

    ``events`` is 0 and ``already_imported`` true when the store held exactly
    this session already (importing the same transcript twice writes nothing).
    """

    session_id: SessionId
    format: str
    invocations: int
    events: int
    statuses: Mapping[str, int]
    in_flight: int
    already_imported: bool


def import_transcript(
    path: str | os.PathLike[str],
    store: EventStore,
    *,
    format: str = "auto",
    session: str | None = None,
    policy: Policy | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Result[TranscriptImport, TranscriptError]:
    """Import the transcript at ``path`` into ``store`` as one session, all or nothing.

    ``format`` is one of `FORMATS` or ``"auto"`` (recognised from the
    content, not the name); ``session`` names the session (by default the
    transcript's own session id, or the file's name); ``policy`` gives each call
    its tier (`policy.default_policy` by default). ``progress(done, total)``
    is told how many calls are converted.
    """
    source = str(path)
    try:
        data = Path(path).read_bytes()
    except OSError as error:
        return Failure(
            TranscriptError(source=source, where="", message=error.strerror or str(error))
        )
    return import_bytes(
        data,
        source,
        store,
        format=format,
        session=session,
        policy=policy,
        progress=progress,
        name=Path(path).stem,
    )


def import_bytes(
    data: bytes,
    source: str,
    store: EventStore,
    *,
    name: str,
    format: str = "auto",
    session: str | None = None,
    policy: Policy | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Result[TranscriptImport, TranscriptError]:
    """`import_transcript` of bytes already read (standard input, say); ``source``
    names them in messages and ``name`` is the session's name of last resort."""
    try:
        transcript = parse(data, format, name)
        session_id = SessionId(session or transcript.session)
        if not session_id:
            raise Unreadable("", "the session name is empty")
        staged = _events(transcript, session_id, policy or default_policy, progress)
        events = [
            StoredEvent(session_id=session_id, sequence=number, recorded_at=at, event=event)
            for number, (_, at, event, _) in enumerate(staged, start=1)
        ]
        folded = fold_events(ToolProjector(), events)
        if not isinstance(folded, Success):
            error = folded.failure()
            raise Unreadable(staged[error.sequence - 1][3].where, error.message)
        state = folded.unwrap().state
        already = _already_there(store, session_id, events)
        if not already:
            written = store.import_events(events)
            if not isinstance(written, Success):
                raise Unreadable("", f"{store!r} refused the session: {written.failure()}")
    except Unreadable as error:
        return Failure(TranscriptError(source=source, where=error.where, message=error.message))
    except StoreReadError as error:
        return Failure(
            TranscriptError(source=source, where="", message=f"reading the store: {error}")
        )
    statuses = {status.value: 0 for status in ToolInvocationStatus}
    for record in state.records():
        statuses[record.status.value] += 1
    return Success(
        TranscriptImport(
            session_id=session_id,
            format=transcript.format,
            invocations=len(state),
            events=0 if already else len(events),
            statuses=statuses,
            in_flight=statuses["requested"] + statuses["started"],
            already_imported=already,
        )
    )


def _already_there(store: EventStore, session_id: SessionId, events: list[StoredEvent]) -> bool:
    """Whether the store holds exactly these events as the session; an error if it holds others."""
    existing = list(store.read(session_id))
    if not existing:
        return False
    if existing == events:
        return True
    raise Unreadable(
        "",
        f"the store holds a different session named {session_id!r} ({len(existing)} events); "
        "import this one under another name (--session)",
    )


Staged = tuple[tuple[Position, int], datetime, object, Call]


def _events(
    transcript: Transcript,
    session_id: SessionId,
    policy: Policy,
    progress: Callable[[int, int], None] | None,
) -> list[Staged]:
    """Every call's events with where they go in the session and when, in session order."""
    staged: list[Staged] = []
    total = len(transcript.calls)
    for done, call in enumerate(transcript.calls, start=1):
        invocation = InvocationId(f"{session_id}/{call.call_id}")
        assignment = policy(call.tool_name, call.arguments)
        try:
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
            if call.started_at is not None or (end is not None and end.kind is not Ending.REJECTED):
                started = max(call.started_at or call.requested_at, call.requested_at)
                staged.append(
                    (
                        (call.started_position or call.position, 1),
                        started,
                        ToolExecutionStartedEvent(invocation_id=invocation),
                        call,
                    )
                )
            if end is not None:
                at = max(end.at, call.requested_at)
                ended = _end_event(transcript, call, invocation, assignment.capabilities)
                staged.append(((end.position, 2), at, ended, call))
        except (ValueError, TypeError) as error:
            raise Unreadable(call.where, f"call {call.call_id}: {error}") from None
        if progress is not None and (done % 1000 == 0 or done == total):
            progress(done, total)
    staged.sort(key=lambda item: item[0])
    return staged


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
        metadata["capabilities"] = ",".join(sorted(c.value for c in capabilities))
    return ToolExecutionCompletedEvent(
        invocation_id=invocation,
        receipt=ToolReceipt(output=end.output, exit_code=end.exit_code, metadata=metadata),
    )
