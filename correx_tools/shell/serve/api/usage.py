"""``GET /api/v1/usage?by=&stack=&agent=&project=&model=&since=&until=&tz=&failed=&machine=&
user=``: ``usage --by BY --json`` of the sessions the filters pick, and each day's usage split by
``stack`` (``project``, ``model``, ``machine`` or ``user``): the layers the page's chart
stacks.

The rows and the total are the command's, built by the same functions (`usage_of`,
`shell.catalog.rows`), and the layers are added up by the database too where the store
keeps its catalog (`stacked_of`); days are counted in ``tz``'s zone (the
server's own where none is given), as the command counts them in ``--tz``'s. Each layer is
its project's (or model's) rows by day (`core.catalog.stacks`), so a day's layers add up to
its row. Every key an agent wrote (a project's path, a model's name) is masked.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import Any

from ....core.catalog.stacks import STACKS
from ....core.catalog.usage import BY, Report, UsageRow
from ...catalog.picking import stacked_of, usage_of
from ...catalog.rows import usage_row_json
from ...catalog.when import local
from ...stores.addresses import redact_dsn
from ..debugger.debugger import Debugger
from .params import choice
from .picking import picked

_BY = tuple(by for by in BY if by != "session")  # the sessions' own list is /api/v1/sessions


def usage(debugger: Debugger, query: Mapping[str, str]) -> dict[str, Any]:
    """The usage report (``by``, default ``day``) and the layers of each day (``stack``,
    default ``project``)."""
    by = choice(query, "by", _BY, "day")
    stack = choice(query, "stack", STACKS, "project")
    asked, zone = picked(query)

    def wall(moment: datetime) -> datetime:
        return local(moment, zone)

    # The filters pick sessions; since and until also bound the activity counted. The rows
    # are the command's and the layers are by day of the same windows, each added up by
    # the database where it keeps the catalog.
    catalog, prices = debugger.catalog.answers, debugger.prices
    report = Report(by=by, local=wall, prices=prices, since=asked.since, until=asked.until)
    rows, total = usage_of(catalog, asked, report)
    by_day = Report(by="day", local=wall, prices=prices, since=asked.since, until=asked.until)
    layers = stacked_of(catalog, asked, by_day, stack)
    keyed = by in ("project", "model", "machine", "user")

    def shown(row: UsageRow) -> dict[str, Any]:
        document = usage_row_json(row)
        document["key"] = debugger.shown(row.key) if keyed else row.key
        return document

    return {
        "source": redact_dsn(debugger.source),
        "by": by,
        "rows": [shown(row) for row in rows],
        "total": usage_row_json(total),
        "stack": stack,
        "layers": [
            {"key": debugger.shown(layer.key), "rest": [debugger.shown(k) for k in layer.rest],
             "days": [usage_row_json(row) for row in layer.rows]}
            for layer in layers
        ],
    }  # fmt: skip
