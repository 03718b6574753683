"""``GET /api/v1/sessions/{S}/scrub?at=&since=``: the session right after one event, as the page
lays it out, all from the columns.

The counts by status (and the non-zero exits beside them), the calls in flight, the events
around it and what changed since the scrubber's last position. Every id comes with its ref,
the name the page asks for it by.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....core.tools.ids import SessionId
from ...stores.codec.envelope import iso_time
from ..columns.changes import changed
from ..columns.columns import KIND_REFUSED, KINDS, STATUSES, SessionColumns, moment
from ..columns.stats_at import counts_at, nonzero_at, open_at
from ..debugger.debugger import Debugger
from ..errors import ApiError
from .calls import named_call
from .params import sequence

SHOWN = 50
"""Rows of each list a scrub shows (each list also says how long it is)."""
AROUND = (6, 3)
"""Events shown before and after the scrubbed one."""


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
    talk = None
    for q in range(max(1, at - before), min(columns.last, at + after) + 1):
        p = columns.event_position[q]
        kind = KINDS[columns.event_kind[q]]
        if kind == "other":  # a prompt, the assistant's words, tokens: what it says
            talk = talk or debugger.talk.through(session, last)
            kind = (None if talk is None else talk.kind_of(q)) or kind
        event = {"sequence": q, "kind": kind}
        event.update(named_call(debugger, columns, p) if p >= 0 else {})
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
                {
                    **named_call(debugger, columns, p),
                    "status": STATUSES[columns.status_at(p, at) - 1],
                }
                for p in flying[:SHOWN]
            ],
        },
        "events": events,
        "changes": {
            "from": since,
            "total": len(moved),
            "items": [
                {
                    **named_call(debugger, columns, p),
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
