"""An invocation without its payloads: sequences, times, status and ending.

Counting calls (``stats``), drawing a report's columns and writing a trace's
spans need only these fields of each invocation, whose request's arguments and
receipt's output stay unread. `outline_of` is the outline of an entry, and
`outline_at` is `record_at <correx_tools.core.replay.stored_index.record_at>`
for an outline: the invocation as it stood at an earlier point.
"""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple, final

from ..lifecycle.status import ToolInvocationStatus
from ..tools.ids import InvocationId
from ..tools.tier import Tier
from .stored_index import InvocationEntry


@final
class InvocationOutline(NamedTuple):
    """One invocation without its payloads: when each applied event came, and how it ended.

    ``ended_seq``, ``completed_at`` and ``reason`` are ``None`` until it ends
    (``reason`` is set for a failed or rejected one); ``status`` is its status
    after every event the outline covers. ``exit_code`` is a completed call's
    receipt's exit code (0 also where none was recorded: only a non-zero one is
    sure to be real, see `recorded`), ``None`` for any other.
    """

    invocation_id: InvocationId
    tool_name: str
    tier: Tier
    requested_seq: int
    requested_at: datetime
    started_seq: int | None
    started_at: datetime | None
    ended_seq: int | None
    completed_at: datetime | None
    status: ToolInvocationStatus
    reason: str | None
    exit_code: int | None


def outline_of(entry: InvocationEntry) -> InvocationOutline:
    """The outline of an entry (its fields without the request and the receipt)."""
    return InvocationOutline(
        entry.invocation_id,
        entry.tool_name,
        entry.tier,
        entry.requested_seq,
        entry.requested_at,
        entry.started_seq,
        entry.started_at,
        entry.ended_seq,
        entry.completed_at,
        entry.status,
        entry.reason,
        None if entry.receipt is None else entry.receipt.exit_code,
    )


def outline_at(outline: InvocationOutline, sequence: int) -> InvocationOutline | None:
    """The invocation as it stood right after event ``sequence`` (``None``: not requested
    yet), as `record_at` gives its record."""
    if sequence < outline.requested_seq:
        return None
    ended = outline.ended_seq
    if ended is not None and ended <= sequence:
        return outline
    started = outline.started_seq is not None and outline.started_seq <= sequence
    if ended is None and (started or outline.started_seq is None):
        return outline
    return outline._replace(
        started_seq=outline.started_seq if started else None,
        started_at=outline.started_at if started else None,
        ended_seq=None,
        completed_at=None,
        status=ToolInvocationStatus.STARTED if started else ToolInvocationStatus.REQUESTED,
        reason=None,
        exit_code=None,
    )
