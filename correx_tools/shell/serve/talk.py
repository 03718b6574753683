"""The page's tokens: a session's turns and what each call spent, read once per size.

A session's tokens by turn and by call are kept by the debugger's `TalkShelf`. ``GET
/api/v1/sessions/{S}/turns`` answers with the turns (each with its prompt's title,
masked, its span, times, calls and tokens), and a call's history holds its own
share (`call_tokens`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.tools.ids import SessionId
from ..replay.spent import call_spent_json, prices_json, spent_json, turn_json
from .debugger.debugger import Debugger


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
        "turns": [turn_json(turn, talk, shown, debugger.prices) for turn in found.turns],
        "unattributed": spent_json(found.unattributed, shown, debugger.prices),
        "prices": prices_json(debugger.prices),
    }


def call_tokens(debugger: Debugger, session: SessionId, invocation: str) -> dict[str, Any] | None:
    """A call's share of its message's tokens, as its history shows it: ``recorded`` false
    where the session records no usage, ``tokens`` null where none reached the call; or
    ``None`` for a session that holds no conversation."""
    talk = debugger.talk.through(session, debugger.last_sequence(session))
    return call_spent_json(talk, invocation, debugger.redaction, debugger.prices)
