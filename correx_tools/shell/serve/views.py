"""The page's views of a call and of a session's family: questions only the page asks.

``GET /api/v1/sessions/{S}/invocations/{ID}/view`` is how the call reads best
(`core.report.tool_views`: an edit's diff, a shell call's terminal) and, for a
call that started a subagent, a link to the subagent's session.
``GET /api/v1/sessions/{S}/family`` is the session's parent (and the call that
started it) and the subagents it started. Everything is masked and named by
ref as every other answer is.
"""

from __future__ import annotations

from typing import Any

from ...core.replay.stored_index import record_at
from ...core.report.tool_views import subagent_of, tool_view
from ...core.tools.ids import SessionId
from .debugger.debugger import Debugger
from .debugger.relations import link
from .errors import ApiError


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
        "subagent": None if child is None else _session_link(debugger, SessionId(child)),
    }


def family(debugger: Debugger, session: SessionId) -> dict[str, Any]:
    """The session's parent (with the call that started it, when the parent names it) and
    the subagents' sessions it started."""
    relations = debugger.relations
    parent = relations.parent(session)
    above = None
    if parent is not None:
        above = _session_link(debugger, parent)
        started = relations.started_by(parent, session) if above["present"] else None
        if started is not None:
            invocation, ended = started
            above.update(
                invocation_id=debugger.shown(invocation),
                invocation_ref=debugger.ref(invocation),
                sequence=ended,
            )
    children = relations.children(session, debugger.catalog.ids())
    return {
        "session_id": debugger.shown(session),
        "parent": above,
        "children": [_session_link(debugger, child) for child in children],
    }


def _session_link(debugger: Debugger, session: SessionId) -> dict[str, Any]:
    """A session named by a link: whether this source holds it (a link to nothing is none)."""
    present = session in debugger.catalog.ids() or session in debugger.catalog.ids(fresh=True)
    return link(debugger.shown(session), debugger.ref(session), present=present)
