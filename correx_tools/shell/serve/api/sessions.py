"""``GET /api/v1/sessions?agent=&project=&model=&since=&until=&tz=&failed=&machine=&q=&sort=&
offset=&limit=``: ``sessions --json``, picked by the command's filters, most recent first (or
sorted), paged; ``GET /api/v1/sessions/{S}``: the session's row and how the server reads it.

Each row is the command's, key for key (`shell.catalog.rows`), with the session's ``ref``
and ``damaged`` (why a session whose events do not hold together has no counts; ``null``
for every other); ``q`` keeps the sessions whose id holds it. The answer holds the slice
``offset`` .. ``offset + limit``, says how long the list is (``total``), and names each
session of the slice by its short id (``short_ids``, by ref: the shortest start of its id no
other session's begins with, as the command's table names it); ``search_index`` says
whether the store keeps a full-text index (`hits` answers through it).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ....core.tools.ids import SessionId
from ...stores.addresses import redact_dsn
from ..debugger.catalog import SORTS
from ..debugger.debugger import Debugger
from .params import choice, paging
from .picking import picked

_SORTS = tuple(key for name in SORTS for key in (name, f"-{name}"))


def sessions(debugger: Debugger, query: Mapping[str, str]) -> dict[str, Any]:
    """``sessions --json`` of the sessions the filters pick whose id holds ``q``, sorted by
    ``sort`` (default: the most recent first), paged; each row also has its ``ref``."""
    offset, limit = paging(query)
    order = choice(query, "sort", _SORTS, "recent")
    asked, _ = picked(query)
    total, rows = debugger.catalog.page(query.get("q", ""), asked, order, offset, limit)
    names = debugger.catalog.short_names()
    return {
        "source": redact_dsn(debugger.source),
        "sessions": rows,
        "short_ids": {row["ref"]: names[row["ref"]] for row in rows if row["ref"] in names},
        "search_index": debugger.catalog.indexed,
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
