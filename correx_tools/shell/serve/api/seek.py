"""``GET /api/v1/sessions/{S}/seek?from=&direction=next|previous&status=``: the next or previous
failure from a sequence: a call that failed, was rejected, or completed with an exit code
other than 0 (or only one of those, by ``status``).
"""

from __future__ import annotations

from bisect import bisect_left, bisect_right
from collections.abc import Mapping
from typing import Any

from ....core.tools.ids import SessionId
from ..columns.columns import KINDS
from ..columns.stats_at import FAILED, NONZERO, REJECTED, endings
from ..debugger.debugger import Debugger
from .calls import named_call
from .params import choice, sequence

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
    answer.update(named_call(debugger, columns, position))
    answer["status"] = KINDS[columns.event_kind[target]]
    answer["exited_nonzero"] = bool(columns.nonzero[position])
    return answer
