"""What the page shows at a scrubbed sequence, and the ways it moves: all from the columns.

``scrub`` is the state right after one event, as the page lays it out: the
counts by status (and the non-zero exits beside them), the calls in flight, the
events around it and what changed since the scrubber's last position. ``seek``
finds the next or previous failure: a call that failed, was rejected, or
completed with an exit code other than 0; ``timeline`` draws a window of time
(of steps, for a session that records no time); ``refused`` lists the events
the lifecycle refused. Every id comes with its ref (`refs`), the name the page
asks for it by.
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from typing import Any

from ...core.tools.ids import SessionId
from ..replay.documents import iso_time
from .columns.changes import changed
from .columns.columns import KIND_REFUSED, KINDS, STATUSES, Refusal, SessionColumns, moment
from .columns.stats_at import FAILED, NONZERO, REJECTED, counts_at, endings, nonzero_at, open_at
from .columns.timeline import (
    BAR_LIMIT,
    BUCKETS,
    bar_fields,
    bars,
    bounds,
    buckets,
    visible_count,
    window,
)
from .debugger.debugger import Debugger
from .errors import ApiError
from .params import choice, paging, sequence, whole

SHOWN = 50
"""Rows of each list a scrub shows (each list also says how long it is)."""
AROUND = (6, 3)
"""Events shown before and after the scrubbed one."""


def _call(debugger: Debugger, columns: SessionColumns, position: int) -> dict[str, Any]:
    invocation = columns.invocation_id(position)
    return {
        "ref": debugger.ref(invocation),
        "invocation_id": debugger.shown(invocation),
        "tool_name": debugger.shown(columns.tools[columns.tool[position]]),
    }


def _event_time(columns: SessionColumns, q: int) -> str | None:
    kind, p = columns.event_kind[q], columns.event_position[q]
    if p < 0 or kind in (0, KIND_REFUSED) or not columns.times:
        return None
    times = columns.req_t if kind == 1 else columns.start_t if kind == 2 else columns.end_t
    return iso_time(moment(times[p]))


def _strict(debugger: Debugger, columns: SessionColumns, at: int) -> None:
    first = columns.refused[0] if columns.refused else None
    if not debugger.lenient and first is not None and first.sequence <= at:
        raise ApiError(
            409,
            f"session {debugger.shown(columns.session_id)!r}: {debugger.shown(first.message)} "
            "(serve --lenient skips events the lifecycle refuses)",
        )


def scrub(debugger: Debugger, session: SessionId, query: Mapping[str, str]) -> dict[str, Any]:
    """The session right after ``at``, and what changed since ``since``."""
    last = debugger.last_sequence(session)
    shown = debugger.shown(session)
    at = sequence(query, "at", shown, last, default=last)
    since = sequence(query, "since", shown, last, default=at)
    columns = debugger.columns(session, max(at, since))
    _strict(debugger, columns, at)
    counts = counts_at(columns, at)
    flying = open_at(columns, at)
    before, after = AROUND
    events = []
    for q in range(max(1, at - before), min(columns.last, at + after) + 1):
        p = columns.event_position[q]
        event = {"sequence": q, "kind": KINDS[columns.event_kind[q]]}
        event.update(_call(debugger, columns, p) if p >= 0 else {})
        events.append(event)
    low, high = min(at, since), max(at, since)
    moved = changed(columns, low, high)
    return {
        "session_id": shown,
        "at": at,
        "last": last,
        "time": _event_time(columns, at) if at else None,
        "counts": {
            **dict(zip(STATUSES, counts, strict=False)),
            "exited_nonzero": nonzero_at(columns, at),
            "refused": counts[5],
        },
        "in_flight": {
            "total": len(flying),
            "items": [
                {**_call(debugger, columns, p), "status": STATUSES[columns.status_at(p, at) - 1]}
                for p in flying[:SHOWN]
            ],
        },
        "events": events,
        "changes": {
            "from": since,
            "total": len(moved),
            "items": [
                {
                    **_call(debugger, columns, p),
                    "before": _status(columns, p, since),
                    "after": _status(columns, p, at),
                }
                for p in moved[:SHOWN]
            ],
        },
    }


def _status(columns: SessionColumns, position: int, sequence: int) -> str | None:
    code = columns.status_at(position, sequence)
    return STATUSES[code - 1] if code else None


_SOUGHT = {
    "failure": (FAILED, REJECTED, NONZERO),
    "failed-or-rejected": (FAILED, REJECTED),
    "failed": (FAILED,),
    "rejected": (REJECTED,),
    "exited-nonzero": (NONZERO,),
}
"""What ``seek`` stops at, by its ``status``: a failure is a call that failed, was
rejected, or completed with an exit code other than 0."""


def seek(debugger: Debugger, session: SessionId, query: Mapping[str, str]) -> dict[str, Any]:
    """The next (or previous) failure after (before) ``from`` (`_SOUGHT`: by default a call
    that failed, was rejected or exited non-zero): its sequence and invocation, or ``null``
    when there is none."""
    last = debugger.last_sequence(session)
    start = sequence(query, "from", debugger.shown(session), last, default=0)
    direction = choice(query, "direction", ("next", "previous"), "next")
    wanted = choice(query, "status", tuple(_SOUGHT), "failure")
    columns = debugger.columns(session)
    by_kind = columns.derived("endings", endings)
    codes = _SOUGHT[wanted]
    found: list[int] = []
    for code in codes:
        ends = by_kind[code]
        if direction == "next":
            index = bisect_right(ends, start)
            found += ends[index : index + 1]
        else:
            index = bisect_left(ends, start)
            found += ends[max(0, index - 1) : index]
    if not found:
        return {"sequence": None, "direction": direction, "from": start}
    target = min(found) if direction == "next" else max(found)
    answer: dict[str, Any] = {"sequence": target, "direction": direction, "from": start}
    position = columns.event_position[target]
    answer.update(_call(debugger, columns, position))
    answer["status"] = KINDS[columns.event_kind[target]]
    answer["exited_nonzero"] = bool(columns.nonzero[position])
    return answer


def timeline(debugger: Debugger, session: SessionId, query: Mapping[str, str]) -> dict[str, Any]:
    """A window of the timeline (``from`` and ``to``: microseconds after the first request,
    the whole session if not given): each call in view as a bar, or buckets past
    `BAR_LIMIT`. A session that records no time is laid out by step: ``axis`` is
    ``"sequence"``, and every time of the answer is a sequence (``origin_us`` the first)."""
    last = debugger.last_sequence(session)
    through = sequence(query, "through", debugger.shown(session), last, default=last)
    columns = debugger.columns(session, through)
    count = whole(query, "buckets", BUCKETS)
    if not 1 <= count <= 1_000:
        raise ApiError(400, f"buckets={count} is not between 1 and 1,000")
    low = whole(query, "from", 0) if "from" in query else None
    high = whole(query, "to", 0) if "to" in query else None
    start, end = window(columns, low, high)
    origin, final = bounds(columns)
    answer: dict[str, Any] = {
        "session_id": debugger.shown(session),
        "last": columns.last,
        "axis": "time" if columns.times else "sequence",
        "origin": iso_time(moment(origin)) if len(columns) and columns.times else None,
        "origin_us": origin if len(columns) else None,  # no calls: no time to start from
        "end": final - origin,
        "from": start - origin,
        "to": end - origin,
        "tools": [debugger.shown(name) for name in columns.tools],
        "visible": visible_count(columns, start, end),
    }
    if answer["visible"] <= BAR_LIMIT:
        answer["mode"] = "bars"
        answer["bars"] = [
            {
                "ref": debugger.ref(invocation := columns.invocation_id(p)),
                "invocation_id": debugger.shown(invocation),
                "tool": columns.tool[p],
                "status": STATUSES[columns.status[p] - 1],
                "exited_nonzero": bool(columns.nonzero[p]),
                **bar_fields(columns, p, origin),
            }
            for p in bars(columns, start, end)
        ]
    else:
        answer["mode"] = "buckets"
        answer["buckets"] = {"count": count, "cells": buckets(columns, start, end, count)}
    return answer


def refused(debugger: Debugger, session: SessionId, query: Mapping[str, str]) -> dict[str, Any]:
    """The events the lifecycle refused, with why (a lenient server skips them), paged."""
    offset, limit = paging(query)
    columns = debugger.columns(session)
    rows = columns.refused[offset : offset + limit]
    return {
        "session_id": debugger.shown(session),
        "total": len(columns.refused),
        "offset": offset,
        "limit": limit,
        "refused": [_refusal(debugger, r) for r in rows],
    }


def _refusal(debugger: Debugger, refusal: Refusal) -> dict[str, Any]:
    invocation = refusal.invocation_id
    return {
        "sequence": refusal.sequence,
        "ref": None if invocation is None else debugger.ref(invocation),
        "invocation_id": None if invocation is None else debugger.shown(invocation),
        "kind": refusal.kind,
        "error": debugger.message(refusal.message),
    }
