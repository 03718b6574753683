"""``GET /api/v1/sessions/{S}/diff?a=&b=&offset=&limit=``: ``diff --json``, ``changes`` paged.

A page is a slice of the command's own list (the repository's ``diff``): one function decides
which calls changed, and in which order, for both; ``total`` is counted from the columns.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....core.tools.ids import SessionId
from ...replay.documents import diff_document
from ..columns.changes import changed_count
from ..debugger.debugger import Debugger
from ..errors import ApiError
from .params import paging, sequence


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
        session, a, b, changes, redaction=debugger.redaction, times=debugger.times(session),
        imported=debugger.imported(session),
    )  # fmt: skip
    for shown_change, change in zip(document["changes"], changes, strict=True):
        shown_change["ref"] = debugger.ref(change.invocation_id)
    # Counted from the columns, at any range in the time of a lookup (the command's count,
    # an aggregate over the range, takes as long as the range is; the tests hold them equal).
    total = changed_count(debugger.columns(session, b), a, b)
    # The calls that exited non-zero did so as they completed: those completed in (a, b].
    nonzero = [debugger.loose.summary(session, at=at).map(lambda s: s.exited_nonzero)
               for at in (a, b)]  # fmt: skip
    for answer in nonzero:
        debugger.strictly(session, answer)
    exited = nonzero[1].unwrap() - nonzero[0].unwrap()
    document.update(total=total, offset=offset, limit=limit, exited_nonzero=exited)
    return document
