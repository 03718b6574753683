"""``GET /api/v1/usage?by=&machine=&user=``: ``usage --json`` of the store, for the page's
chart: sessions, calls, tokens and cost by day, week, month, project, model, agent,
machine, user, session or block (days in UTC), of the sessions of ``machine`` and ``user``
where given."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any, cast

from ....core.catalog.listing import SessionQuery
from ....core.catalog.usage import BY, By, Report, usage_json
from ...catalog.picking import catalog_of, usage_of
from ...stores.addresses import redact_dsn
from ..debugger.debugger import Debugger
from .params import choice


def _utc(moment: datetime) -> datetime:
    """Days are UTC's: the server does not know the zone of whoever reads the page."""
    return moment


def usage(debugger: Debugger, query: Mapping[str, str]) -> dict[str, Any]:
    """``usage --json``, grouped by ``by`` (default: day), of the sessions picked."""
    by = cast(By, choice(query, "by", BY, "day"))
    picked = SessionQuery(machine=query.get("machine") or None, user=query.get("user") or None)
    catalog = catalog_of(debugger.store, debugger.loose)
    report = Report(by=by, local=_utc, prices=debugger.prices)
    rows, total = usage_of(catalog, picked, report)
    return {
        "source": redact_dsn(debugger.source),
        "by": by,
        "rows": [usage_json(row) for row in rows],
        "total": usage_json(total),
    }
