"""The API's answers that the command gives too: each the command's ``--json`` document, paged.

``GET /api/v1/sessions`` is ``sessions --json``, ``state`` is ``replay --at K
--json``, ``history`` is ``history --json``, ``diff`` is ``diff --json`` and
``stats`` is ``stats --json``, built by the same functions
(`correx_tools.shell.replay.documents`). Where a list can be long, the answer
holds the slice ``offset`` .. ``offset + limit`` of it and says how long it is
(``total``); the rest of the document is the command's. Which invocations a
page of ``state`` holds is decided from the session's columns, and their
records are read from the store's index by id, so a page costs the same at any
size. A page of ``diff`` is a slice of the command's own list (the
repository's ``diff``): one function decides which calls changed, and in which
order, for both.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ...core.replay.stored_index import InvocationEntry, record_at
from ...core.tools.ids import InvocationId, SessionId
from ..replay.documents import (
    diff_document,
    history_document,
    refused_about,
    state_document,
    stats_document,
)
from ..replay.lead_up import lead_up_in, request_sequence
from ..stores.addresses import redact_dsn
from .columns.changes import changed_count
from .columns.columns import SessionColumns
from .columns.stats_at import in_flight_at, tool_stats_at
from .debugger.catalog import SORTS
from .debugger.debugger import Debugger
from .errors import ApiError
from .params import choice, paging, sequence
from .talk import call_tokens

_SORTS = tuple(key for name in SORTS for key in (name, f"-{name}"))


def sessions(debugger: Debugger, query: Mapping[str, str]) -> dict[str, Any]:
    """``sessions --json``, filtered by ``q`` (in the id), sorted by ``sort``, paged; each row
    also has its ``ref`` and the times of its first and last events."""
    offset, limit = paging(query)
    order = choice(query, "sort", _SORTS, "session")
    total, rows = debugger.catalog.page(query.get("q", ""), order, offset, limit)
    return {
        "source": redact_dsn(debugger.source),
        "sessions": rows,
        "total": total,
        "offset": offset,
        "limit": limit,
    }


def overview(debugger: Debugger, session: SessionId) -> dict[str, Any]:
    """The session at a glance: its row of ``sessions``, and how the server reads it."""
    row = dict(debugger.catalog.row(session))
    row["last_sequence"] = row["events"]
    row["lenient"] = debugger.lenient
    row["indexed"] = debugger.keeps_index
    row["redacted"] = debugger.redaction is not None
    row["times_recorded"] = debugger.times(session)
    return row


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
    )
    document.update(total=total, quarantined_total=len(refused), offset=offset, limit=limit)
    return document


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
        times=debugger.times(session), lead_up=led,
    )  # fmt: skip
    document["spent"] = call_tokens(debugger, session, invocation)
    return document


def diff(debugger: Debugger, session: SessionId, query: Mapping[str, str]) -> dict[str, Any]:
    """``diff --json``: ``changes`` paged, each with the ref the page opens it by. The page is
    the slice of the command's own list (the repository's ``diff``, from the same index), and
    ``total`` how long the list is: one order, whoever asks."""
    last = debugger.last_sequence(session)
    shown = debugger.shown(session)
    a, b = (sequence(query, name, shown, last) for name in ("a", "b"))
    if a > b:
        raise ApiError(400, f"a={a} is after b={b}: diff goes forward in time")
    offset, limit = paging(query)
    page = debugger.loose.diff(session, a, b, limit, offset)
    debugger.strictly(session, page)
    changes = page.unwrap()
    document = diff_document(
        session, a, b, changes, redaction=debugger.redaction, times=debugger.times(session)
    )
    for shown_change, change in zip(document["changes"], changes, strict=True):
        shown_change["ref"] = debugger.ref(change.invocation_id)
    # Counted from the columns, at any range in the time of a lookup (the command's count,
    # an aggregate over the range, takes as long as the range is; the tests hold them equal).
    total = changed_count(debugger.columns(session, b), a, b)
    document.update(total=total, offset=offset, limit=limit)
    return document


def stats(debugger: Debugger, session: SessionId, query: Mapping[str, str]) -> dict[str, Any]:
    """``stats --json``: ``in_flight`` paged."""
    last = debugger.last_sequence(session)
    at = sequence(query, "at", debugger.shown(session), last, default=last)
    offset, limit = paging(query)
    debugger.strictly(session, debugger.answers.summary(session, at=at))
    columns = debugger.columns(session, at)
    flying = in_flight_at(columns, at)
    document = stats_document(
        session,
        at,
        tool_stats_at(columns, at),
        flying[offset : offset + limit],
        redaction=debugger.redaction,
        times=debugger.times(session),
    )
    document.update(total=len(flying), offset=offset, limit=limit)
    return document
