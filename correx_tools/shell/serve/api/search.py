"""Finding invocations: by tool, status and id from the columns, by text from their records.

A search walks the session's invocations in request order from a cursor
(``after``), keeps those that match, and stops at ``limit`` matches or when its
time budget is spent, whichever comes first; ``next`` is where the following
page starts (``null`` once the walk reached the end). A page therefore never
stalls the server, however rare the text: a slow search is many quick pages.
Text is looked for, ignoring case, in what the page would show: the redacted
arguments, output and reason.
"""

from __future__ import annotations

import json
import time
from collections.abc import Mapping
from typing import Any

from ....core.lifecycle.record import ToolInvocationRecord
from ....core.replay.stored_index import record_at
from ....core.tools.ids import InvocationId, SessionId
from ....core.tools.json_values import thaw_json
from ..columns.columns import STATUSES, SessionColumns
from ..debugger.debugger import Debugger
from ..errors import ApiError
from .params import paging, sequence, whole

BUDGET_SECONDS = 0.25
"""How long one page may look before it answers with what it found."""
_BATCH = 100
"""Records read at a time when looking for text."""
EXITED_NONZERO = "exited-nonzero"
"""The ``status`` filter for the completed calls whose exit code was not 0."""
STATUS_FILTERS = (*STATUSES, EXITED_NONZERO)
"""What ``status=`` may ask for: a status, or the completed calls that exited non-zero."""
_COMPLETED = STATUSES.index("completed") + 1


def search(debugger: Debugger, session: SessionId, query: Mapping[str, str]) -> dict[str, Any]:
    """One page of the invocations requested by ``at`` that match every filter given."""
    last = debugger.last_sequence(session)
    at = sequence(query, "at", debugger.shown(session), last, default=last)
    _, limit = paging(query)
    after = whole(query, "after", -1)
    status = checked_status(query)
    text = (query.get("q") or "").casefold()
    id_part = (query.get("id") or "").casefold()
    columns = debugger.columns(session, at)
    tools = None
    if query.get("tool"):
        tools = {n for n, name in enumerate(columns.tools) if debugger.shown(name) == query["tool"]}
    deadline = time.monotonic() + BUDGET_SECONDS
    end = columns.requested_by(at)
    matches: list[dict[str, Any]] = []
    position = max(after + 1, 0)
    while position < end and len(matches) < limit and time.monotonic() < deadline:
        batch: list[int] = []
        while position < end and len(batch) < _BATCH:
            p, position = position, position + 1
            if tools is not None and columns.tool[p] not in tools:
                continue
            code = columns.status_at(p, at)
            if status == EXITED_NONZERO:
                if code != _COMPLETED or not columns.nonzero[p]:
                    continue
            elif status is not None and STATUSES[code - 1] != status:
                continue
            if id_part and id_part not in debugger.shown(columns.invocation_id(p)).casefold():
                continue
            batch.append(p)
        for p, where in _with_text(debugger, columns, batch, at, text):
            if len(matches) == limit:
                position = p  # this page ends before it: the next starts here
                break
            matches.append(
                {
                    "ref": debugger.ref(columns.invocation_id(p)),
                    "invocation_id": debugger.shown(columns.invocation_id(p)),
                    "tool_name": debugger.shown(columns.tools[columns.tool[p]]),
                    "status": STATUSES[columns.status_at(p, at) - 1],
                    "requested_seq": columns.req[p],
                    "ended_seq": columns.end[p] if 0 < columns.end[p] <= at else None,
                    "where": where,
                }
            )
    return {
        "session_id": debugger.shown(session),
        "at": at,
        "matches": matches,
        "next": position - 1 if position < end else None,
        "scanned": position - max(after + 1, 0),
        "limit": limit,
    }


def checked_status(query: Mapping[str, str]) -> str | None:
    """The ``status`` filter asked for (``None``: any), or a 400 naming what it may be."""
    status = query.get("status") or None
    if status is not None and status not in STATUS_FILTERS:
        raise ApiError(400, f"status={status!r} is not one of {', '.join(STATUS_FILTERS)}")
    return status


def _with_text(
    debugger: Debugger,
    columns: SessionColumns,
    positions: list[int],
    at: int,
    text: str,
) -> list[tuple[int, list[str]]]:
    """The positions whose record at ``at`` holds ``text`` (all of them for no text), each
    with where it was found."""
    if not text or not positions:
        return [(p, []) for p in positions]
    ids = [InvocationId(columns.invocation_id(p)) for p in positions]
    found = []
    session = SessionId(columns.session_id)
    for p, entry in zip(positions, debugger.loose.entries_by_id(session, ids), strict=True):
        record = None if entry is None else record_at(entry, at)
        if record is None:
            continue
        where = [
            name
            for name, value in _texts(debugger, record)
            if value is not None and text in value.casefold()
        ]
        if text in debugger.shown(record.invocation_id).casefold():
            where.insert(0, "id")
        if where:
            found.append((p, where))
    return found


def _texts(debugger: Debugger, record: ToolInvocationRecord) -> list[tuple[str, str | None]]:
    def shown(value: Any) -> str:
        masked = value if debugger.redaction is None else debugger.redaction.value(value)
        return json.dumps(masked, ensure_ascii=False)

    receipt = record.receipt
    return [
        ("arguments", shown(thaw_json(record.request.arguments))),
        ("output", None if receipt is None else shown(thaw_json(receipt.output))),
        ("reason", None if record.reason is None else debugger.message(record.reason)),
    ]
