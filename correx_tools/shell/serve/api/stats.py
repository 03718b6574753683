"""``GET /api/v1/sessions/{S}/stats?at=&offset=&limit=``: ``stats --json``, ``in_flight`` paged.

The per-tool statistics and the calls in flight come from the session's columns
(`columns.stats_at`), which the tests hold to the command's `tool_stats` and `in_flight`;
the tokens are the command's (``tokens``: ``null`` for a session that holds no
conversation), key for key.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....core.tools.ids import SessionId
from ...replay.documents import stats_document
from ...replay.spent import talked_if_any, tokens_json
from ..columns.stats_at import in_flight_at, tool_stats_at
from ..debugger.debugger import Debugger
from .params import paging, sequence


def stats(debugger: Debugger, session: SessionId, query: Mapping[str, str]) -> dict[str, Any]:
    """``stats --json``: ``in_flight`` paged."""
    last = debugger.last_sequence(session)
    at = sequence(query, "at", debugger.shown(session), last, default=last)
    offset, limit = paging(query)
    debugger.strictly(session, debugger.answers.summary(session, at=at))
    columns = debugger.columns(session, at)
    imported = debugger.imported(session)
    flying = in_flight_at(columns, at, imported=imported)
    document = stats_document(
        session,
        at,
        tool_stats_at(columns, at, imported=imported),
        flying[offset : offset + limit],
        redaction=debugger.redaction,
        times=debugger.times(session),
    )
    if at == last:
        talk = debugger.talk.through(session, last)
    else:
        talk = talked_if_any(debugger.store, session, at, imported=imported)
    document["tokens"] = tokens_json(
        talk, debugger.redaction, debugger.prices, times=debugger.times(session)
    )
    document.update(total=len(flying), offset=offset, limit=limit)
    return document
