"""``GET /api/v1/sessions/{S}/timeline?from=&to=&buckets=&through=``: a window of the timeline,
each call in view as a bar or, past `BAR_LIMIT`, buckets per tool and outcome (drawn by
`columns.timeline`); a session that records no time is laid out by step.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....core.tools.ids import SessionId
from ...stores.codec.envelope import iso_time
from ..columns.columns import STATUSES, moment
from ..columns.timeline import (
    BAR_LIMIT,
    BUCKETS,
    bar_fields,
    bars,
    bounds,
    buckets,
    visible_count,
    window,
)
from ..debugger.debugger import Debugger
from ..errors import ApiError
from .params import sequence, whole


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
