"""What a session's report page holds, as one JSON document: decided here, drawn by the page.

The page must stay small and quick on a session of a million events, so the
document is built for it rather than for reading:

* every invocation, as columns in request order (``ids``, ``tool``, ``status`` and
  the sequences and times of its request, start and end, each number written as
  the difference from the one before it where that keeps it short); the page
  rebuilds the session's event order from them, so no per-event list is needed;
* ``checkpoints``: the counts by status after every ``every``-th event, so the
  scrubber's counts at any sequence cost at most ``every`` steps;
* ``details``: the arguments, receipt and versions of the invocations worth
  opening (failed, rejected and in flight first, then the rest in request order),
  up to a count and a size, so an invocation's history opens without a store;
* ``stats``: `tool_stats` of the final state; ``refused``: the events the
  lifecycle refused, with why (lenient mode).

Every string that came from the session goes through a `Redaction` first:
nothing is written into the page unmasked.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import UTC, datetime, timedelta
from typing import Any, NamedTuple

from ..lifecycle.events import StoredEvent
from ..lifecycle.record import ToolInvocationRecord
from ..lifecycle.state import ToolState
from ..lifecycle.status import ToolInvocationStatus
from ..lifecycle.transitions import TransitionError
from ..replay.analytics import Percentiles, tool_stats
from ..replay.stored_index import STATUS_CODES, InvocationEntry, record_at
from ..tools.json_values import thaw_json
from .redaction import DEFAULT, Redaction

FORMAT = 1
"""The version of the document's layout (the page refuses one it does not know)."""

STATUSES = tuple(status.value for status in ToolInvocationStatus)
"""Status names by code minus one, as the page shows them."""


class PageLimits(NamedTuple):
    """How much of a session a page holds in full.

    ``details``: invocations whose arguments and receipts are embedded;
    ``details_bytes``: the most their JSON may take; ``refused``: refused events
    listed with their errors; ``checkpoints``: at most this many count
    checkpoints (the interval grows with the session).
    """

    details: int = 2_000
    details_bytes: int = 6_000_000
    refused: int = 1_000
    checkpoints: int = 2_000


LIMITS = PageLimits()
"""The default limits."""


def page_data(
    session_id: str,
    last_sequence: int,
    entries: Sequence[InvocationEntry],
    refused: Sequence[tuple[StoredEvent, TransitionError]],
    *,
    redaction: Redaction = DEFAULT,
    limits: PageLimits = LIMITS,
) -> dict[str, Any]:
    """The page's document for one session: ``entries`` in request order (as
    `SessionEntries` gives them) and the refused events."""
    tools: dict[str, int] = {}
    columns = invocation_columns(entries, redaction, tools)
    origin = _micros(entries[0].requested_at) if entries else 0
    final = [record_at(entry, last_sequence) for entry in entries]
    records = [record for record in final if record is not None]
    every = max(1, -(-last_sequence // limits.checkpoints))
    return {
        "format": FORMAT,
        "session": redaction.text(session_id),
        "last": last_sequence,
        "origin": origin,
        "statuses": STATUSES,
        "tools": [redaction.text(name) for name in tools],
        "invocations": columns,
        "checkpoints": {
            "every": every,
            "counts": checkpoints(entries, refused, last_sequence, every),
        },
        "refused": {
            "total": len(refused),
            "sequences": [stored.sequence for stored, _ in refused],
            "shown": [
                _refusal(stored, error, redaction) for stored, error in refused[: limits.refused]
            ],
        },
        "details": details(records, entries, redaction, limits),
        "stats": [_stats_row(row, redaction) for row in tool_stats(ToolState.of_records(records))],
    }


def invocation_columns(
    entries: Sequence[InvocationEntry], redaction: Redaction, tools: dict[str, int]
) -> dict[str, list[Any]]:
    """The invocations as columns (see the module's docstring); ``tools`` gets each tool's
    number as it is first seen. Times are microseconds after the first request."""
    origin = entries[0].requested_at if entries else _EPOCH
    requested = [(e.requested_at - origin) // _MICROSECOND for e in entries]
    started = [
        None if e.started_at is None else (e.started_at - origin) // _MICROSECOND for e in entries
    ]
    ended = [
        None if e.completed_at is None else (e.completed_at - origin) // _MICROSECOND
        for e in entries
    ]
    return {
        "ids": [redaction.text(e.invocation_id) for e in entries],
        "tool": [tools.setdefault(e.tool_name, len(tools)) for e in entries],
        "status": [STATUS_CODES[e.status] for e in entries],
        "rs": _differences([e.requested_seq for e in entries]),
        "ss": [_after(e.started_seq, e.requested_seq) for e in entries],
        "es": [_after(e.ended_seq, e.requested_seq) for e in entries],
        "rt": _differences(requested),
        "qt": [-1 if s is None else s - r for r, s in zip(requested, started, strict=True)],
        "run": [
            -1 if x is None else x - (r if s is None else s)
            for r, s, x in zip(requested, started, ended, strict=True)
        ],
    }


def _differences(values: list[int]) -> list[int]:
    """Each value less the one before it (the first less 0): short numbers for the page."""
    return [b - a for a, b in zip([0, *values], values, strict=False)]


def checkpoints(
    entries: Sequence[InvocationEntry],
    refused: Sequence[tuple[StoredEvent, TransitionError]],
    last_sequence: int,
    every: int,
) -> list[list[int]]:
    """The counts by status (five) and of refused events after sequences 0, ``every``,
    ``2 * every``, ...: each event's change lands in the first checkpoint at or after it."""
    slots = last_sequence // every + 1
    deltas = [[0] * 6 for _ in range(slots)]

    def move(sequence: int, before: int, after: int) -> None:
        slot = -(-sequence // every)
        if slot >= slots:
            return  # after the last checkpoint: the page steps to it from there
        delta = deltas[slot]
        if before:
            delta[before - 1] -= 1
        delta[after - 1] += 1

    for entry in entries:
        final = STATUS_CODES[entry.status]
        move(entry.requested_seq, 0, 1)
        if entry.started_seq is not None:
            move(entry.started_seq, 1, 2)
        if entry.ended_seq is not None:
            move(entry.ended_seq, 1 if entry.started_seq is None else 2, final)
    for stored, _ in refused:
        move(stored.sequence, 0, 6)
    running = [0] * 6
    out = []
    for delta in deltas:
        running = [a + b for a, b in zip(running, delta, strict=True)]
        out.append(running)
    return out


def details(
    records: Sequence[ToolInvocationRecord],
    entries: Sequence[InvocationEntry],
    redaction: Redaction,
    limits: PageLimits,
) -> dict[str, Any]:
    """The embedded details, by position in ``entries``: the ones worth opening first."""
    worth = [i for i, r in enumerate(records) if r.status is not ToolInvocationStatus.COMPLETED]
    worth += [i for i, r in enumerate(records) if r.status is ToolInvocationStatus.COMPLETED]
    chosen: dict[str, Any] = {}
    size = 0
    for position in worth[: limits.details]:
        record, entry = records[position], entries[position]
        detail = _detail(record, entry, redaction)
        size += len(json.dumps(detail, ensure_ascii=False))
        if size > limits.details_bytes:
            break
        chosen[str(position)] = detail
    return chosen


def _detail(
    record: ToolInvocationRecord, entry: InvocationEntry, redaction: Redaction
) -> dict[str, Any]:
    receipt = record.receipt
    return {
        "tier": record.tier.value,
        "arguments": redaction.value(thaw_json(record.request.arguments)),
        "receipt": None
        if receipt is None
        else {
            "exit_code": receipt.exit_code,
            "output": redaction.value(thaw_json(receipt.output)),
            "metadata": redaction.value(thaw_json(receipt.metadata)),
        },
        "reason": None if record.reason is None else redaction.short_text(record.reason),
        "recoverable": record.recoverable,
        "versions": [
            [sequence, at.isoformat()]
            for sequence, at in (
                (entry.requested_seq, entry.requested_at),
                (entry.started_seq, entry.started_at),
                (entry.ended_seq, entry.completed_at),
            )
            if sequence is not None and at is not None
        ],
    }


def _refusal(stored: StoredEvent, error: TransitionError, redaction: Redaction) -> list[Any]:
    invocation = getattr(stored.event, "invocation_id", None)
    return [
        stored.sequence,
        None if invocation is None else redaction.text(invocation),
        error.kind.value,
        redaction.short_text(str(error)),
    ]


def _stats_row(stats: Any, redaction: Redaction) -> dict[str, Any]:
    return {
        "tool": redaction.text(stats.tool_name),
        "calls": stats.calls,
        "completed": stats.completed,
        "failed": stats.failed,
        "rejected": stats.rejected,
        "in_flight": stats.in_flight,
        "queued": _micros_of(stats.queued),
        "ran": _micros_of(stats.ran),
    }


def _micros_of(values: Percentiles) -> list[int | None]:
    return [None if v is None else v // _MICROSECOND for v in values]


def _after(sequence: int | None, requested: int) -> int:
    return 0 if sequence is None else sequence - requested


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)


def _micros(moment: datetime) -> int:
    return (moment - _EPOCH) // _MICROSECOND
