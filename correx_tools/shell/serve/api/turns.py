"""``GET /api/v1/sessions/{S}/turns``: the session's turns, each with its prompt's title
(masked), its span, times, calls and tokens, and the session's tokens in all, from the
debugger's `TalkShelf`.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....core.tools.ids import SessionId
from ...replay.spent import prices_json, spent_json, turn_json
from ..debugger.debugger import Debugger


def turns(debugger: Debugger, session: SessionId, query: Mapping[str, str]) -> dict[str, Any]:
    """The session's turns and its tokens in all (``recorded``: whether any usage is;
    ``conversation``: whether it holds a conversation at all)."""
    last = debugger.last_sequence(session)
    talk = debugger.talk.through(session, last)
    shown = debugger.redaction
    if talk is None:
        return {"session_id": debugger.shown(session), "conversation": False, "recorded": False,
                "tokens": None, "turns": [], "unattributed": None}  # fmt: skip
    found = talk.spending
    return {
        "session_id": debugger.shown(session),
        "conversation": True,
        "recorded": found.spent is not None,
        "tokens": spent_json(found.spent, shown, debugger.prices),
        "turns": [
            turn_json(turn, talk, shown, debugger.prices, times=debugger.times(session))
            for turn in found.turns
        ],
        "unattributed": spent_json(found.unattributed, shown, debugger.prices),
        "prices": prices_json(debugger.prices),
    }
