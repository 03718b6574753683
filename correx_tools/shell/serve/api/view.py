"""``GET /api/v1/sessions/{S}/invocations/{ID}/view``: how the call reads best
(`core.report.tool_views`: an edit's diff, a shell call's terminal) and, for a call that
started a subagent, a link to the subagent's session; masked and named by ref as every
other answer is.
"""

from __future__ import annotations

from typing import Any

from ....core.replay.stored_index import record_at
from ....core.report.tool_views import subagent_of, tool_view
from ....core.tools.ids import SessionId
from ..debugger.debugger import Debugger
from ..errors import ApiError
from .family import session_link


def view(debugger: Debugger, session: SessionId, ref: str) -> dict[str, Any]:
    """How one call reads best, as it stands at the session's last event."""
    columns = debugger.columns(session)
    invocation = debugger.invocation(columns, ref)
    [entry] = debugger.loose.entries_by_id(session, [invocation])
    record = None if entry is None else record_at(entry, columns.last)
    if record is None:
        raise ApiError(
            404,
            f"invocation {debugger.shown(invocation)!r} was never requested in session "
            f"{debugger.shown(session)!r}",
        )
    child = subagent_of(record)
    return {
        "session_id": debugger.shown(session),
        "invocation_id": debugger.shown(invocation),
        "view": tool_view(record, debugger.redaction),
        "subagent": None if child is None else session_link(debugger, SessionId(child)),
    }
