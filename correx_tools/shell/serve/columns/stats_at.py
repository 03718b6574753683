"""Counts, per-tool statistics and the calls in flight at any sequence, from a session's columns.

``correx-tools stats --at K`` builds the state at ``K`` and runs `tool_stats` over
it; at a million events that is seconds, too slow for a scrubber. Here the same
numbers come from structures built once per columns: each tool's request, start
and end sequences in order (a count at ``K`` is a binary search) and its
durations in the order they became known (a percentile of those known by ``K``
is a `PrefixOrder` question). ``tests/test_serve_columns.py`` holds them to
`tool_stats`, `in_flight` and the repository's summary at random points.
"""

from __future__ import annotations

from array import array
from bisect import bisect_right
from datetime import timedelta
from math import ceil
from typing import NamedTuple

from ....core.lifecycle.status import ToolInvocationStatus
from ....core.replay.analytics import Percentiles, ToolStats
from ....core.replay.order_stats import PrefixOrder
from ....core.replay.stabbing import BlockMax
from ....core.replay.stored_index import STATUS_OF_CODE
from .columns import KIND_STARTED, SessionColumns

_MICROSECOND = timedelta(microseconds=1)
_NEVER = 1 << 62
COMPLETED, FAILED, REJECTED = 3, 4, 5
_ENDINGS = (COMPLETED, FAILED, REJECTED)


class _Known(NamedTuple):
    """Durations of one kind for one tool: the sequence each became known at, in order, and
    the duration (microseconds)."""

    at: array[int]
    values: array[int]


class _Tool(NamedTuple):
    """One tool's calls, as counting at any sequence needs them (``nonzero``: the sequences
    at which its calls completed with an exit code other than 0). ``queued`` and ``ran``
    are of every start (they count the calls started); ``queued_recorded`` and
    ``ran_recorded`` of the starts an import did not stand in for (`recorded_start`);
    ``took`` of every end (request to end)."""

    name: str
    requested: array[int]
    ended: dict[int, array[int]]
    nonzero: array[int]
    queued: _Known
    ran: _Known
    queued_recorded: _Known
    ran_recorded: _Known
    took: _Known


def _tools(columns: SessionColumns) -> list[_Tool]:
    count = len(columns.tools)
    seq = columns.req.typecode  # sequences take four bytes while they fit
    requested = [array(seq) for _ in range(count)]
    ended = [{code: array(seq) for code in _ENDINGS} for _ in range(count)]
    nonzero = [array(seq) for _ in range(count)]
    queued, ran, queued_recorded, ran_recorded, took = (
        [_Known(array(seq), array("q")) for _ in range(count)] for _ in range(5)
    )
    req, tool = columns.req, columns.tool
    for p in range(len(columns)):
        requested[tool[p]].append(req[p])
    # Walked in the order of the events, so every list comes out sorted without a sort.
    start, req_t, start_t, end_t = columns.start, columns.req_t, columns.start_t, columns.end_t
    kinds, positions, exits = columns.event_kind, columns.event_position, columns.nonzero
    for q in range(1, columns.last + 1):
        kind = kinds[q]
        if kind == KIND_STARTED:
            p = positions[q]
            _known(queued[tool[p]], q, start_t[p] - req_t[p])
            if start_t[p] != req_t[p]:
                _known(queued_recorded[tool[p]], q, start_t[p] - req_t[p])
        elif COMPLETED <= kind <= REJECTED:
            p = positions[q]
            ended[tool[p]][kind].append(q)
            if exits[p]:
                nonzero[tool[p]].append(q)
            if start[p]:
                _known(ran[tool[p]], q, end_t[p] - start_t[p])
                if start_t[p] != req_t[p]:
                    _known(ran_recorded[tool[p]], q, end_t[p] - start_t[p])
            _known(took[tool[p]], q, end_t[p] - req_t[p])
    return [
        _Tool(name, requested[t], ended[t], nonzero[t], queued[t], ran[t], queued_recorded[t],
              ran_recorded[t], took[t])
        for t, name in enumerate(columns.tools)
    ]  # fmt: skip


def _known(known: _Known, sequence: int, value: int) -> None:
    known.at.append(sequence)
    known.values.append(value)


def _kept(tool: _Tool, imported: bool) -> tuple[_Known, _Known, _Known]:
    """The durations a tool's stats are of: queued and ran of the recorded starts alone in
    an imported session (`recorded_start`), of every start in any other; took."""
    if imported:
        return tool.queued_recorded, tool.ran_recorded, tool.took
    return tool.queued, tool.ran, tool.took


def _orders(columns: SessionColumns, imported: bool) -> list[tuple[PrefixOrder, ...]]:
    return [
        tuple(PrefixOrder(known.values) for known in _kept(tool, imported))
        for tool in columns.derived("tools", _tools)
    ]


def _percentiles(known: _Known, order: PrefixOrder, sequence: int, times: bool) -> Percentiles:
    m = bisect_right(known.at, sequence) if times else 0  # by step: no duration to take
    if not m:
        return Percentiles(None, None, None)
    # Nearest rank, as `percentiles` takes it: the ceil(p * n / 100)-th smallest.
    p50, p95 = (max(1, ceil(p * m / 100)) for p in (50, 95))
    low, high, most = (order.smallest(m, k) * _MICROSECOND for k in (p50, p95, m))
    return Percentiles(low, high, most, m)


def tool_stats_at(
    columns: SessionColumns, sequence: int, *, imported: bool = False
) -> list[ToolStats]:
    """`tool_stats` of the session's state right after ``sequence`` (at most
    ``columns.last``; ``imported``: as `tool_stats` takes it)."""
    rows = []
    orders = columns.derived(
        "orders imported" if imported else "orders", lambda c: _orders(c, imported)
    )
    for tool, (queued, ran, took) in zip(columns.derived("tools", _tools), orders, strict=True):
        waited, running, whole = _kept(tool, imported)
        calls = bisect_right(tool.requested, sequence)
        if not calls:
            continue
        completed, failed, rejected = (bisect_right(tool.ended[c], sequence) for c in _ENDINGS)
        rows.append(
            ToolStats(
                tool_name=tool.name,
                calls=calls,
                completed=completed,
                failed=failed,
                exited_nonzero=bisect_right(tool.nonzero, sequence),
                rejected=rejected,
                in_flight=calls - completed - failed - rejected,
                queued=_percentiles(waited, queued, sequence, columns.times),
                ran=_percentiles(running, ran, sequence, columns.times),
                took=_percentiles(whole, took, sequence, columns.times),
            )
        )
    rows.sort(key=lambda row: row.tool_name)
    return rows


def counts_at(columns: SessionColumns, sequence: int) -> list[int]:
    """The invocations by status (the five codes, in order) and the refused events, right
    after ``sequence``: what the store's index keeps as a session's counters."""
    requested = started = ended_started = 0
    ended = dict.fromkeys(_ENDINGS, 0)
    for tool in columns.derived("tools", _tools):
        requested += bisect_right(tool.requested, sequence)
        started += bisect_right(tool.queued.at, sequence)
        ended_started += bisect_right(tool.ran.at, sequence)
        for code in _ENDINGS:
            ended[code] += bisect_right(tool.ended[code], sequence)
    refused = sum(1 for refusal in columns.refused if refusal.sequence <= sequence)
    open_started = started - ended_started
    open_requested = requested - open_started - sum(ended.values())
    return [open_requested, open_started, *ended.values(), refused]


def nonzero_at(columns: SessionColumns, sequence: int) -> int:
    """How many calls completed with an exit code other than 0 by ``sequence``."""
    return sum(bisect_right(tool.nonzero, sequence) for tool in columns.derived("tools", _tools))


def _open_tree(columns: SessionColumns) -> BlockMax:
    end = columns.end
    return BlockMax(len(columns), lambda p: end[p] or _NEVER)


def open_at(columns: SessionColumns, sequence: int, limit: int | None = None) -> list[int]:
    """The positions of the invocations in flight right after ``sequence``, in request order."""
    tree = columns.derived("open", _open_tree)
    return tree.above(columns.requested_by(sequence), sequence, limit)


def in_flight_at(
    columns: SessionColumns, sequence: int, *, imported: bool = False
) -> list[tuple[str, str, ToolInvocationStatus, timedelta | None]]:
    """`in_flight` of the state right after ``sequence``: ``(id, tool, status, queued)`` of
    each call requested or started and not ended, oldest request first (then by id; by
    step, and no time queued, for a session that records no time; no time queued for a
    start an import stood in for, ``imported``)."""
    found = []
    for p in open_at(columns, sequence):
        started = 0 < columns.start[p] <= sequence
        waited = started and columns.times
        if waited and imported and columns.start_t[p] == columns.req_t[p]:
            waited = False  # a stand-in start (`recorded_start`)
        found.append(
            (
                columns.req_t[p],
                columns.invocation_id(p),
                columns.tools[columns.tool[p]],
                STATUS_OF_CODE[2 if started else 1],
                (columns.start_t[p] - columns.req_t[p]) * _MICROSECOND if waited else None,
            )
        )
    found.sort(key=lambda row: (row[0], row[1]))
    return [row[1:] for row in found]


NONZERO = 7
"""`endings`' key for the completions with an exit code other than 0."""


def endings(columns: SessionColumns) -> dict[int, list[int]]:
    """The sequences at which calls failed, were rejected, completed, or completed with an exit
    code other than 0 (`NONZERO`), each in order: what the page's seek walks."""
    found: dict[int, list[int]] = {FAILED: [], REJECTED: [], COMPLETED: [], NONZERO: []}
    positions, nonzero = columns.event_position, columns.nonzero
    for q, kind in enumerate(columns.event_kind):
        if kind in found:
            found[kind].append(q)
            if kind == COMPLETED and nonzero[positions[q]]:
                found[NONZERO].append(q)
    return found
