"""``GET /api/v1/sessions/{S}/family``: the session's parent (and the call that started it) and
the subagents it started, each a link the page draws, masked and named by ref as every other
answer is.
"""

from __future__ import annotations

from typing import Any

from ....core.tools.ids import SessionId
from ..debugger.debugger import Debugger
from ..debugger.relations import link


def family(debugger: Debugger, session: SessionId) -> dict[str, Any]:
    """The session's parent (with the call that started it, when the parent names it) and
    the subagents' sessions it started."""
    relations = debugger.relations
    parent = relations.parent(session)
    above = None
    if parent is not None:
        above = session_link(debugger, parent)
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
        "children": [session_link(debugger, child) for child in children],
    }


def session_link(debugger: Debugger, session: SessionId) -> dict[str, Any]:
    """A session named by a link: whether this source holds it (a link to nothing is none)."""
    present = session in debugger.catalog.ids() or session in debugger.catalog.ids(fresh=True)
    return link(debugger.shown(session), debugger.ref(session), present=present)
