"""The JSON documents that answer questions about a session, as the command prints them.

``correx-tools replay``, ``history``, ``diff`` and ``stats`` print these with
``--json`` (``sessions`` and ``usage``, `shell.catalog.rows`'), and ``correx-tools
serve`` answers its API with the very same functions, so the two cannot drift
apart. Each builder takes the answers the repository gave and an optional
`Redaction`: the command prints a session as it is (``None``); the server masks
what it sends unless told not to.

They show only what the session recorded (`correx_tools.core.replay.recorded`):
an exit code no transcript stated is ``null``, and in a session whose transcript
records no time (``times`` false: its description says so) every time is
``null`` and no duration is computed, the document saying ``"times_recorded":
false``. A non-zero exit is counted beside the statuses (``exited_nonzero``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from datetime import timedelta
from typing import Any

from ...core.lifecycle.events import StoredEvent
from ...core.lifecycle.record import ToolInvocationRecord
from ...core.lifecycle.status import ToolInvocationStatus
from ...core.lifecycle.transitions import TransitionError
from ...core.replay.analytics import Percentiles, ToolStats
from ...core.replay.lead_up import LeadUp
from ...core.replay.recorded import exit_code_of, recorded_start
from ...core.replay.summary import DiffSummary, SessionSummary
from ...core.replay.timeline import RecordChange
from ...core.report.redaction import Redaction
from ...core.tools.json_values import thaw_json
from ..stores.codec.envelope import iso_time
from .lead_up import lead_up_json


class _Shown:
    """What a document shows of a session's strings: as they are, or redacted."""

    __slots__ = ("_redaction",)

    def __init__(self, redaction: Redaction | None) -> None:
        self._redaction = redaction

    def text(self, value: str) -> str:
        """A name or an id: secrets masked, never cut."""
        return value if self._redaction is None else self._redaction.text(value)

    def strings(self, values: Mapping[str, str | None]) -> dict[str, str | None]:
        """Each string of ``values`` as shown (``None`` stays ``None``)."""
        return {key: None if value is None else self.text(value) for key, value in values.items()}

    def message(self, value: str) -> str:
        """A reason or an error: secrets masked, a long one cut."""
        return value if self._redaction is None else self._redaction.short_text(value)

    def value(self, value: Any) -> Any:
        """A payload (arguments, output, metadata): secrets masked, large parts cut."""
        return value if self._redaction is None else self._redaction.value(value)


def record_json(
    record: ToolInvocationRecord,
    redaction: Redaction | None = None,
    *,
    times: bool = True,
    imported: bool = False,
) -> dict[str, Any]:
    """A record as plain JSON (``times`` false: the session records none, shown as ``null``;
    ``imported``: a start an import stood in for is ``null``, `recorded_start`)."""
    shown = _Shown(redaction)
    receipt = record.receipt
    return {
        "invocation_id": shown.text(record.invocation_id),
        "tool_name": shown.text(record.tool_name),
        "tier": record.tier.value,
        "status": record.status.value,
        "arguments": shown.value(thaw_json(record.request.arguments)),
        "requested_at": iso_time(record.requested_at) if times else None,
        "started_at": iso_time(
            recorded_start(record.requested_at, record.started_at, imported=imported)
        )
        if times
        else None,
        "completed_at": iso_time(record.completed_at) if times else None,
        "reason": None if record.reason is None else shown.message(record.reason),
        "recoverable": record.recoverable,
        "receipt": None
        if receipt is None
        else {
            "output": shown.value(thaw_json(receipt.output)),
            "exit_code": exit_code_of(receipt),
            "metadata": shown.value(thaw_json(receipt.metadata)),
        },
    }


def by_status(counts: Mapping[ToolInvocationStatus, int]) -> dict[str, int]:
    """Counts by status name, in the lifecycle's order."""
    return {status.value: counts[status] for status in ToolInvocationStatus}


def state_document(
    session_id: str,
    at: int,
    summary: SessionSummary,
    records: Iterable[ToolInvocationRecord],
    refused: Sequence[tuple[StoredEvent, TransitionError]],
    *,
    redaction: Redaction | None = None,
    times: bool = True,
    imported: bool = False,
) -> dict[str, Any]:
    """``replay --at K --json``: the session right after event ``at``."""
    shown = _Shown(redaction)
    return {
        "session_id": shown.text(session_id),
        "at": at,
        "times_recorded": times,
        "invocations": [record_json(r, redaction, times=times, imported=imported) for r in records],
        "statuses": by_status(summary.counts),
        "exited_nonzero": summary.exited_nonzero,
        "quarantined": [
            {"sequence": e.sequence, "error": shown.message(str(err))} for e, err in refused
        ],
    }


def history_document(
    session_id: str,
    invocation_id: str,
    history: Iterable[tuple[int, ToolInvocationRecord]],
    refused: Iterable[tuple[int, str]],
    *,
    redaction: Redaction | None = None,
    times: bool = True,
    imported: bool = False,
    lead_up: LeadUp | None = None,
) -> dict[str, Any]:
    """``history --json``: each version of one invocation's record, the events about it the
    lifecycle refused, and what led to it (``lead_up``: its turn's prompt, the words and
    reasoning before it; ``null`` when not asked)."""
    shown = _Shown(redaction)
    return {
        "session_id": shown.text(session_id),
        "invocation_id": shown.text(invocation_id),
        "times_recorded": times,
        "versions": [
            {"sequence": s, "record": record_json(r, redaction, times=times, imported=imported)}
            for s, r in history
        ],
        "refused": [{"sequence": s, "error": shown.message(e)} for s, e in refused],
        "lead_up": None if lead_up is None else lead_up_json(lead_up, redaction),
    }


def refused_about(
    refused: Iterable[tuple[StoredEvent, TransitionError]], invocation_id: str
) -> list[tuple[int, str]]:
    """The refused events about one invocation: not versions of it, but part of its story
    (a second Started, a completion after it ended)."""
    return [
        (stored.sequence, str(error))
        for stored, error in refused
        if getattr(stored.event, "invocation_id", None) == invocation_id
    ]


def change_json(
    change: RecordChange,
    redaction: Redaction | None = None,
    *,
    times: bool = True,
    imported: bool = False,
) -> dict[str, Any]:
    """One invocation added or changed between two sequences."""
    before = change.before
    return {
        "invocation_id": _Shown(redaction).text(change.invocation_id),
        "before": None if before is None
                  else record_json(before, redaction, times=times, imported=imported),
        "after": record_json(change.after, redaction, times=times, imported=imported),
    }  # fmt: skip


def diff_document(
    session_id: str,
    a: int,
    b: int,
    changes: Iterable[RecordChange],
    *,
    redaction: Redaction | None = None,
    times: bool = True,
    imported: bool = False,
) -> dict[str, Any]:
    """``diff --json``: the invocations added or changed from right after ``a`` to ``b``."""
    return {
        "session_id": _Shown(redaction).text(session_id),
        "a": a,
        "b": b,
        "times_recorded": times,
        "changes": [change_json(c, redaction, times=times, imported=imported) for c in changes],
    }


def diff_summary_document(
    session_id: str,
    summary: DiffSummary,
    *,
    redaction: Redaction | None = None,
    exited_nonzero: int = 0,
) -> dict[str, Any]:
    """``diff --summary --json``: the invocations added or changed from right after ``a`` to
    ``b``, counted: by status at ``b`` (``exited_nonzero``: the completed that exited with
    a code other than 0, among them), and by tool (in code point order)."""
    shown = _Shown(redaction)
    return {
        "session_id": shown.text(session_id),
        "a": summary.a,
        "b": summary.b,
        "total": summary.total,
        "added": summary.added,
        "changed": summary.changed,
        "finished": summary.finished,
        "statuses": by_status(summary.counts),
        "exited_nonzero": exited_nonzero,
        "tools": [
            {"tool_name": shown.text(tool), "added": added, "changed": changed}
            for tool, (added, changed) in sorted(summary.tools.items())
        ],
    }


def stats_document(
    session_id: str,
    at: int,
    stats: Iterable[ToolStats],
    in_flight: Iterable[tuple[str, str, ToolInvocationStatus, timedelta | None]],
    *,
    redaction: Redaction | None = None,
    times: bool = True,
) -> dict[str, Any]:
    """``stats --json``: per-tool counts, rates and durations at ``at``, and what is in
    flight there (``(id, tool, status, queued)`` of each, oldest request first). In a
    session that records no time every duration is ``null``, and ``note`` says why."""
    shown = _Shown(redaction)
    rows = [stats_json(row, redaction, times=times) for row in stats]
    document: dict[str, Any] = {
        "session_id": shown.text(session_id),
        "at": at,
        "times_recorded": times,
        "exited_nonzero": sum(row["exited_nonzero"] for row in rows),
        "tools": rows,
        "in_flight": [
            {
                "invocation_id": shown.text(invocation),
                "tool_name": shown.text(tool),
                "status": status.value,
                "queued_seconds": seconds(queued) if times else None,
            }
            for invocation, tool, status, queued in in_flight
        ],
    }
    if not times:
        document["note"] = NO_DURATIONS
    return document


NO_DURATIONS = (
    "no durations: the transcript records no time for its steps (their order is the sequences')"
)
"""What ``stats`` says of a session whose transcript records no time."""


def stats_json(
    row: ToolStats, redaction: Redaction | None = None, *, times: bool = True
) -> dict[str, Any]:
    """One tool's row of ``stats --json`` (``times`` false: its durations ``null``): each
    duration's p50, p95 and maximum, and how many calls they are of (``calls``: queued and
    ran of the calls whose start was recorded, took of those that ended)."""
    return {
        "tool_name": _Shown(redaction).text(row.tool_name),
        "calls": row.calls,
        "completed": row.completed,
        "failed": row.failed,
        "exited_nonzero": row.exited_nonzero,
        "rejected": row.rejected,
        "in_flight": row.in_flight,
        "completed_rate": row.completed_rate,
        "failed_rate": row.failed_rate,
        "rejected_rate": row.rejected_rate,
        "queued_seconds": _percentiles_json(row.queued if times else _NONE),
        "ran_seconds": _percentiles_json(row.ran if times else _NONE),
        "took_seconds": _percentiles_json(row.took if times else _NONE),
    }


_NONE = Percentiles(None, None, None)


def _percentiles_json(spread: Percentiles) -> dict[str, float | int | None]:
    return {"p50": seconds(spread.p50), "p95": seconds(spread.p95), "max": seconds(spread.max),
            "calls": spread.calls}  # fmt: skip


def seconds(duration: timedelta | None) -> float | None:
    """A duration in seconds, as the documents give it (``None`` stays ``None``)."""
    return None if duration is None else duration.total_seconds()
