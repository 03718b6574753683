"""``GET /api/v1/sessions/{S}/state?at=&offset=&limit=``: ``replay --at K --json``, with
``invocations`` and ``quarantined`` paged alike.

The document is built by the command's own function (`shell.replay.documents`). Which
invocations a page holds is decided from the session's columns, and their records are read
from the store's index by id, so a page costs the same at any size.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....core.replay.stored_index import InvocationEntry, record_at
from ....core.tools.ids import InvocationId, SessionId
from ...replay.documents import state_document
from ..columns.columns import SessionColumns
from ..debugger.debugger import Debugger
from ..errors import ApiError
from .params import paging, sequence


def _records_at(
    debugger: Debugger, session: SessionId, columns: SessionColumns, positions: list[int]
) -> list[InvocationEntry]:
    ids = [InvocationId(columns.invocation_id(p)) for p in positions]
    found = debugger.loose.entries_by_id(session, ids)
    if any(entry is None for entry in found):
        raise ApiError(409, f"{debugger.source}: the index of session {session!r} lost an entry")
    return [entry for entry in found if entry is not None]


def state(debugger: Debugger, session: SessionId, query: Mapping[str, str]) -> dict[str, Any]:
    """``replay --at K --json``: ``invocations`` and ``quarantined`` paged alike."""
    last = debugger.last_sequence(session)
    at = sequence(query, "at", debugger.shown(session), last, default=last)
    offset, limit = paging(query)
    summary = debugger.answers.summary(session, at=at)
    debugger.strictly(session, summary)
    columns = debugger.columns(session, at)
    total = columns.requested_by(at)
    positions = list(range(min(offset, total), min(offset + limit, total)))
    records = [record_at(entry, at) for entry in _records_at(debugger, session, columns, positions)]
    refused = debugger.answers.refused(session, at=at)
    document = state_document(
        session,
        at,
        summary.unwrap(),
        [r for r in records if r is not None],
        refused[offset : offset + limit],
        redaction=debugger.redaction,
        times=debugger.times(session),
        imported=debugger.imported(session),
    )
    document.update(total=total, quarantined_total=len(refused), offset=offset, limit=limit)
    return document
