"""``GET /api/v1/sessions/{S}/refused?offset=&limit=``: the events the lifecycle refused, with
why, paged (a lenient server skips them; the page still lists them).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....core.tools.ids import SessionId
from ..columns.columns import Refusal
from ..debugger.debugger import Debugger
from .params import paging


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
