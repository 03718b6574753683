"""``GET /api/v1/sessions/{S}/invocations/{ID}/history``: ``history --json``, every version of
one invocation's record, with its lead-up and its share of its message's tokens.
"""

from __future__ import annotations

from typing import Any

from ....core.tools.ids import SessionId
from ...replay.documents import (
    history_document,
    refused_about,
)
from ...replay.lead_up import lead_up_in, request_sequence
from ...replay.spent import call_spent_json
from ..debugger.debugger import Debugger
from ..errors import ApiError


def history(debugger: Debugger, session: SessionId, ref: str) -> dict[str, Any]:
    """``history --json``: every version of one invocation's record."""
    invocation = debugger.invocation(debugger.columns(session), ref)
    found = debugger.loose.history(session, invocation)
    debugger.strictly(session, found)
    versions = found.unwrap()
    if not versions:
        raise ApiError(
            404,
            f"invocation {debugger.shown(invocation)!r} was never requested in session "
            f"{debugger.shown(session)!r}",
        )
    refused = refused_about(debugger.loose.refused(session), invocation)
    request = request_sequence(versions)
    led = None if request is None else lead_up_in(debugger.store, session, request)
    document = history_document(
        session, invocation, versions, refused, redaction=debugger.whole,
        times=debugger.times(session), imported=debugger.imported(session), lead_up=led,
    )  # fmt: skip
    document["spent"] = call_tokens(debugger, session, invocation)
    return document


def call_tokens(debugger: Debugger, session: SessionId, invocation: str) -> dict[str, Any] | None:
    """A call's share of its message's tokens, as its history shows it: ``recorded`` false
    where the session records no usage, ``tokens`` null where none reached the call; or
    ``None`` for a session that holds no conversation."""
    talk = debugger.talk.through(session, debugger.last_sequence(session))
    return call_spent_json(talk, invocation, debugger.redaction, debugger.prices)
