"""Lifecycle analytics: how long invocations waited and ran, what is in flight, per-tool stats.

Pure functions over a `ToolState` (any state a timeline gives, so they work
at any point of a session). Times come from the records, which carry the
``recorded_at`` of the events that made them; where a point is missing (a
call never started, or has not ended yet) its duration is ``None`` rather
than a guess, and so is a start an import stood in for (``imported``:
`recorded_start`): such a call is left out of the time it waited and ran, and
counted in the time it took (request to end). Each figure says how many calls it
is of (`Percentiles.calls`). The clock is an argument wherever "now" matters.

Percentiles are nearest-rank: the p-th percentile of n sorted durations is
the ⌈p·n/100⌉-th of them, always one of the measured values.
"""

from __future__ import annotations

import math
from array import array
from collections.abc import Iterable, Sequence
from datetime import datetime, timedelta
from typing import NamedTuple, TypeVar, final

from ..lifecycle.record import ToolInvocationRecord
from ..lifecycle.state import ToolState
from ..lifecycle.status import ToolInvocationStatus
from .recorded import receipt_exited_nonzero, recorded_start

_IN_FLIGHT = (ToolInvocationStatus.REQUESTED, ToolInvocationStatus.STARTED)
R = TypeVar("R", int, timedelta)


class Durations(NamedTuple):
    """How long one invocation waited, ran, and took in all; ``None`` where unknown.

    ``queued`` is started - requested; ``ran`` is ended - started; ``total`` is
    ended - requested (a call rejected before it started has a total, and
    neither of the others).
    """

    queued: timedelta | None
    ran: timedelta | None
    total: timedelta | None


def durations(record: ToolInvocationRecord) -> Durations:
    """The `Durations` of ``record``, from the times its events were recorded."""
    requested, started, ended = record.requested_at, record.started_at, record.completed_at
    return Durations(
        queued=None if started is None else started - requested,
        ran=None if started is None or ended is None else ended - started,
        total=None if ended is None else ended - requested,
    )


def in_flight(state: ToolState) -> tuple[ToolInvocationRecord, ...]:
    """The invocations requested or started and not yet ended, oldest request first."""
    return tuple(
        sorted(
            (record for record in state.records() if record.status in _IN_FLIGHT),
            key=lambda record: (record.requested_at, record.invocation_id),
        )
    )


def stuck(
    state: ToolState, now: datetime, older_than: timedelta
) -> tuple[ToolInvocationRecord, ...]:
    """The invocations in flight whose last step (requested or started) is older than
    ``older_than`` at ``now``: waiting too long to start, or running too long."""
    return tuple(
        record
        for record in in_flight(state)
        if now - (record.started_at or record.requested_at) > older_than
    )


class Percentiles(NamedTuple):
    """p50, p95 and the maximum of some durations (all ``None`` when there are none), and
    how many calls (durations) they are of."""

    p50: timedelta | None
    p95: timedelta | None
    max: timedelta | None
    calls: int = 0

    @property
    def spread(self) -> tuple[timedelta | None, timedelta | None, timedelta | None]:
        """p50, p95 and the maximum."""
        return self.p50, self.p95, self.max


class ToolStats(NamedTuple):
    """One tool's calls in a state: counts by outcome, their rates, and durations.

    ``exited_nonzero`` counts the completed calls whose exit code is not 0 (they are
    among ``completed``: a non-zero exit is not a status). ``queued`` and ``ran`` are of
    the calls whose start was recorded, ``took`` (request to end) of the calls that ended.
    """

    tool_name: str
    calls: int
    completed: int
    failed: int
    exited_nonzero: int
    rejected: int
    in_flight: int
    queued: Percentiles
    ran: Percentiles
    took: Percentiles = Percentiles(None, None, None)

    @property
    def completed_rate(self) -> float:
        """Completed calls as a share of all calls."""
        return self.completed / self.calls

    @property
    def failed_rate(self) -> float:
        """Failed calls as a share of all calls."""
        return self.failed / self.calls

    @property
    def rejected_rate(self) -> float:
        """Rejected calls as a share of all calls."""
        return self.rejected / self.calls


def percentiles(values: Iterable[timedelta]) -> Percentiles:
    """Nearest-rank p50 and p95, and the maximum, of ``values``.

    >>> percentiles(timedelta(seconds=s) for s in range(1, 101)).p95.seconds
    95
    """
    ordered = sorted(values)
    if not ordered:
        return Percentiles(None, None, None)
    return Percentiles(_rank(ordered, 50), _rank(ordered, 95), ordered[-1], len(ordered))


def tool_stats(state: ToolState, *, imported: bool = False) -> tuple[ToolStats, ...]:
    """Per-tool statistics of every invocation in ``state``, by tool name (``imported``: of
    a session imported from a transcript, whose stand-in starts are no starts)."""
    builder = ToolStatsBuilder(imported=imported)
    for record in state.records():
        builder.add(
            record.tool_name,
            record.status,
            record.requested_at,
            record.started_at,
            record.completed_at,
            nonzero=record.status is ToolInvocationStatus.COMPLETED
            and receipt_exited_nonzero(record.receipt),
        )
    return builder.stats()


@final
class ToolStatsBuilder:
    """`tool_stats` one invocation at a time, for a session too large to hold as records.

    Each call keeps its tool's counters (by status, then its non-zero exits) and its
    durations as microseconds (eight bytes each); `stats` gives what `tool_stats` gives
    for the same invocations, in any order (``imported``: as `tool_stats` takes it).
    """

    __slots__ = ("_imported", "_tools")

    def __init__(self, *, imported: bool = False) -> None:
        self._imported = imported
        self._tools: dict[str, tuple[list[int], array[int], array[int], array[int]]] = {}

    def _tool(self, name: str) -> tuple[list[int], array[int], array[int], array[int]]:
        tool = self._tools.get(name)
        if tool is None:
            tool = self._tools[name] = ([0] * 6, array("q"), array("q"), array("q"))
        return tool

    def add(
        self,
        tool_name: str,
        status: ToolInvocationStatus,
        requested_at: datetime,
        started_at: datetime | None,
        completed_at: datetime | None,
        *,
        nonzero: bool = False,
    ) -> None:
        """Count one invocation (its fields as its record has them; ``nonzero``: it
        completed with an exit code other than 0)."""
        tool = self._tool(tool_name)
        tool[0][_POSITION[status]] += 1
        tool[0][5] += nonzero
        started = recorded_start(requested_at, started_at, imported=self._imported)
        if started is not None:
            tool[1].append((started - requested_at) // _MICROSECOND)
            if completed_at is not None:
                tool[2].append((completed_at - started) // _MICROSECOND)
        if completed_at is not None:
            tool[3].append((completed_at - requested_at) // _MICROSECOND)

    def add_micros(
        self,
        tool_name: str,
        status: ToolInvocationStatus,
        queued: int | None,
        ran: int | None,
        took: int | None = None,
        *,
        nonzero: bool = False,
    ) -> None:
        """Count one invocation whose durations (`Durations` ``queued``, ``ran`` and
        ``total``) are known already, in microseconds."""
        tool = self._tool(tool_name)
        tool[0][_POSITION[status]] += 1
        tool[0][5] += nonzero
        if queued is not None:
            tool[1].append(queued)
        if ran is not None:
            tool[2].append(ran)
        if took is not None:
            tool[3].append(took)

    def stats(self) -> tuple[ToolStats, ...]:
        """Each tool's `ToolStats`, by tool name."""
        rows = []
        for name in sorted(self._tools):
            counts, queued, ran, took = self._tools[name]
            requested, started, completed, failed, rejected, nonzero = counts
            rows.append(
                ToolStats(
                    tool_name=name,
                    calls=requested + started + completed + failed + rejected,
                    completed=completed,
                    failed=failed,
                    exited_nonzero=nonzero,
                    rejected=rejected,
                    in_flight=requested + started,
                    queued=_micro_percentiles(queued),
                    ran=_micro_percentiles(ran),
                    took=_micro_percentiles(took),
                )
            )
        return tuple(rows)


_MICROSECOND = timedelta(microseconds=1)
_POSITION = {status: position for position, status in enumerate(ToolInvocationStatus)}


def _micro_percentiles(values: array[int]) -> Percentiles:
    """`percentiles` of durations kept as microseconds (a duration is a whole number of them,
    so the order, and so each rank, is the same)."""
    ordered = sorted(values)
    if not ordered:
        return Percentiles(None, None, None)
    p50, p95, most = (timedelta(microseconds=v)
                      for v in (_rank(ordered, 50), _rank(ordered, 95), ordered[-1]))  # fmt: skip
    return Percentiles(p50, p95, most, len(ordered))


def _rank(ordered: Sequence[R], percent: int) -> R:
    """The nearest-rank ``percent``-th percentile of sorted, non-empty ``ordered``."""
    return ordered[max(1, math.ceil(percent * len(ordered) / 100)) - 1]
