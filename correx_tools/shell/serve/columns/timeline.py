"""The timeline at any zoom, drawn from a session's columns on the server.

A window of time shows either each call in view as a bar (up to `BAR_LIMIT`
of them) or, past that, the calls requested in each of ``buckets`` equal
stretches of the window, per tool and by how they ended. Both come from
structures built once per columns: the calls in order of request time, the
times of the ended ones in order, and each tool's request times by outcome. A
count is then two binary searches, whatever the session's size: a million
events draw as fast as a thousand. ``tests/test_serve_columns.py`` holds the
buckets to a plain count over the entries.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left, bisect_right
from operator import le
from typing import Any, NamedTuple

from ....core.replay.order_stats import sort_order
from ....core.replay.stabbing import BlockMax
from .columns import SessionColumns

BAR_LIMIT = 1_000
"""At most this many calls in view are drawn one by one; past it, in buckets."""
BUCKETS = 240
"""Buckets across the window, by default."""
_OPEN = 1 << 62
_TERMINAL = (3, 4, 5)
NONZERO = 6
"""The key of a tool's calls that completed with an exit code other than 0."""


class _TimeIndex(NamedTuple):
    """The calls by request time, and what counting a window needs."""

    origin: int
    end: int
    by_time: array[int] | None
    """The positions in order of request time (``None``: they are in that order already,
    as a session recorded by one clock is)."""
    times: array[int]
    reach: BlockMax
    ended: array[int]
    per_tool: list[dict[int, array[int]]]
    """Per tool: its request times in order, all (key 0), by outcome (3, 4, 5), and of its
    calls that completed with an exit code other than 0 (`NONZERO`)."""


def _time_index(columns: SessionColumns) -> _TimeIndex:
    req_t, end_t, status, tool = columns.req_t, columns.end_t, columns.status, columns.tool
    nonzero = columns.nonzero
    in_order = all(map(le, req_t[:-1], req_t[1:]))
    by_time = None if in_order else sort_order(req_t)
    times = req_t if by_time is None else array("q", map(req_t.__getitem__, by_time))
    per_tool: list[dict[int, array[int]]] = [
        {key: array("q") for key in (0, *_TERMINAL, NONZERO)} for _ in columns.tools
    ]
    for p in range(len(req_t)) if by_time is None else by_time:
        lanes = per_tool[tool[p]]
        lanes[0].append(req_t[p])
        if status[p] in _TERMINAL:
            lanes[status[p]].append(req_t[p])
            if nonzero[p]:
                lanes[NONZERO].append(req_t[p])

    def reach(rank: int) -> int:
        # How far a bar reaches: its end, or the session's end for a call in flight.
        p = rank if by_time is None else by_time[rank]
        return end_t[p] if status[p] in _TERMINAL else _OPEN

    ended = array("q", sorted(end_t[p] for p in range(len(columns)) if status[p] in _TERMINAL))
    start_t, started = columns.start_t, columns.start
    early = (start_t[p] for p in range(len(columns)) if started[p])  # started calls only
    origin = min(min(req_t, default=0), min(early, default=_OPEN)) if len(req_t) else 0
    end = max(
        max(req_t, default=origin),
        max(columns.start_t, default=origin),
        max(end_t, default=origin),
    )
    return _TimeIndex(origin, end, by_time, times, BlockMax(len(req_t), reach), ended, per_tool)


def bounds(columns: SessionColumns) -> tuple[int, int]:
    """The session's first call's first time (its request, or a start recorded before it)
    and its last event's time (microseconds since 1970)."""
    index = columns.derived("time", _time_index)
    return index.origin, index.end


def visible_count(columns: SessionColumns, start: int, end: int) -> int:
    """How many calls are in view from ``start`` to ``end`` (absolute microseconds): requested
    by ``end``, and not ended before ``start`` (a call in flight reaches the session's end)."""
    index = columns.derived("time", _time_index)
    return bisect_right(index.times, end) - bisect_left(index.ended, start)


def bars(columns: SessionColumns, start: int, end: int) -> list[int]:
    """The positions of the calls in view, in order of request time."""
    index = columns.derived("time", _time_index)
    ranks = index.reach.above(bisect_right(index.times, end), start - 1)
    return ranks if index.by_time is None else [index.by_time[rank] for rank in ranks]


def buckets(columns: SessionColumns, start: int, end: int, count: int) -> list[list[int]]:
    """``[tool, bucket, open, completed, failed, rejected, exited non-zero]`` for each bucket
    with calls: the calls requested from ``start`` to ``end`` (both included), a call at time
    ``t`` in bucket ``min(count - 1, (t - start) * count // (end - start))``. The calls that
    exited non-zero are among the completed ones."""
    index = columns.derived("time", _time_index)
    span = max(end - start, 1)
    # The first time of bucket j: the least t with (t - start) * count // span >= j.
    edges = [start + (j * span + count - 1) // count for j in range(count)]
    cells = []
    for number, lanes in enumerate(index.per_tool):
        every = lanes[0]
        first, last = bisect_left(every, start), bisect_right(every, end)
        if first == last:
            continue
        cuts = {key: _cuts(times, edges, end) for key, times in lanes.items()}
        for j in range(count):
            calls = cuts[0][j + 1] - cuts[0][j]
            if calls:
                done = [cuts[key][j + 1] - cuts[key][j] for key in _TERMINAL]
                nonzero = cuts[NONZERO][j + 1] - cuts[NONZERO][j]
                cells.append([number, j, calls - sum(done), *done, nonzero])
    return cells


def _cuts(times: array[int], edges: list[int], end: int) -> list[int]:
    return [bisect_left(times, edge) for edge in edges] + [bisect_right(times, end)]


def window(columns: SessionColumns, start: int | None, end: int | None) -> tuple[int, int]:
    """The window asked for, in absolute microseconds: the whole session where not given."""
    origin, last = bounds(columns)
    low = origin if start is None else origin + start
    high = last if end is None else origin + end
    return low, max(high, low)


def bar_fields(columns: SessionColumns, position: int, origin: int) -> dict[str, Any]:
    """One bar's times (relative to ``origin``; ``None`` where there is none: a start may
    come before its request, so a time's sign says nothing) and sequences."""
    start, end = columns.start[position], columns.end[position]
    return {
        "requested": columns.req_t[position] - origin,
        "started": columns.start_t[position] - origin if start else None,
        "ended": columns.end_t[position] - origin if end else None,
        "requested_seq": columns.req[position],
        "ended_seq": end,
    }
