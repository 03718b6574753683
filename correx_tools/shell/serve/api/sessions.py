"""``GET /api/v1/sessions?q=&machine=&user=&sort=&offset=&limit=``: ``sessions --json``,
filtered, sorted and paged; ``GET /api/v1/sessions/{S}``: the session's row and how the
server reads it.

Each row is the command's, with the session's ``ref`` and the times of its first and last
events (`debugger.catalog`); the answer holds the slice ``offset`` .. ``offset + limit`` and
says how long the list is (``total``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....core.tools.ids import SessionId
from ...stores.addresses import redact_dsn
from ..debugger.catalog import SORTS
from ..debugger.debugger import Debugger
from .params import choice, paging

_SORTS = tuple(key for name in SORTS for key in (name, f"-{name}"))


def sessions(debugger: Debugger, query: Mapping[str, str]) -> dict[str, Any]:
    """``sessions --json``, filtered by ``q`` (in the id) and, in a team's store, by
    ``machine`` and ``user``, sorted by ``sort``, paged; each row also has its ``ref``, the
    times of its first and last events, its machine and its user."""
    offset, limit = paging(query)
    order = choice(query, "sort", _SORTS, "session")
    total, rows = debugger.catalog.page(
        query.get("q", ""), order, offset, limit,
        machine=query.get("machine") or None, user=query.get("user") or None,
    )  # fmt: skip
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
