"""``correx-tools sessions``: the sessions of a SOURCE (every agent's folder found when
none is given), the most recent first, with the filters a person asks with.

One table that fits the width it is given: a short id that no other session of the SOURCE
shares (at least 8 characters: any command takes it for SESSION), when the session last
moved (local time), its agent, project and title, its calls and failures, its tokens and
cost. ``--wide`` shows every column whole; ``--json`` every field of every session.
"""

from __future__ import annotations

import argparse
import sys
from datetime import datetime, tzinfo
from decimal import Decimal
from typing import Any

from ....core.catalog.listing import Listed, SessionQuery
from ....core.report.redaction import Redaction
from ...catalog.picking import short_names_of
from ...catalog.rows import session_json
from .. import arguments
from ..output.lead_up_text import tokens_cell
from ..output.readable import counted
from ..output.render import emit, in_line
from ..output.tables import Column, table
from ..output.tokens_text import dollars, short_count
from ..sources.catalogs import catalog_for
from ..sources.filters import local, query_of, zone_of
from ..sources.prices import prices_of
from ..sources.stores import open_source_or_agents

ON_A_TERMINAL = 30
"""How many sessions a terminal shows unless ``--limit`` says otherwise."""


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools sessions``."""
    arguments.add_source(parser, optional=True)
    arguments.add_session_filters(parser)
    arguments.add_terminal_limit(parser, "N most recent", ON_A_TERMINAL)
    arguments.add_shown_arguments(parser, masked=False)
    arguments.add_prices_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools sessions``; the exit status."""
    query, zone, prices = query_of(args), zone_of(args), prices_of(args)
    store, label = open_source_or_agents(args.source)
    catalog = catalog_for(store, label)
    limit = arguments.terminal_limit(args, ON_A_TERMINAL)
    page, total = catalog.listed(query, limit=limit)
    if not total and not query.asks_nothing:
        everything, _ = catalog.listed(SessionQuery())
        print(f"correx-tools sessions: {in_line(_matches_nothing(query, everything))}",
              file=sys.stderr)  # fmt: skip
    redaction = Redaction()
    rows = [session_json(listed, redaction, prices) for listed in page]
    document = {"source": label, "total": total, "limit": limit or 0, "sessions": rows}

    def text() -> str:
        if not page:
            return "no session" if query.asks_nothing else "no session matches"
        if args.wide:
            shown = table(WIDE, [_wide_cells(listed, row, zone) for listed, row in
                                 zip(page, rows, strict=True)], wide=True)  # fmt: skip
        else:
            names = short_names_of(catalog, [listed.session_id for listed in page])
            shown = _table(page, rows, names, zone)
        if len(page) < total:
            shown += f"\n{total - len(page):,} more: --limit 0 shows all"
        return shown

    emit(args, document, text)
    return 0 if total or query.asks_nothing else 1


def _matches_nothing(query: SessionQuery, everything: list[Listed]) -> str:
    """Why a filter found nothing, naming what there is to pick from."""
    asked = [f"--{name} {value}" for name, value in (("agent", query.agent),
             ("project", query.project), ("model", query.model), ("machine", query.machine),
             ("user", query.user)) if value is not None]  # fmt: skip
    said = "no session matches " + (" ".join(asked) or "the filters given")
    known: list[str] = []
    if query.agent is not None:
        agents = sorted({s.facts.agent for s in everything if s.facts.agent})
        known.append("agents here: " + (", ".join(agents) or "none named"))
    if query.model is not None:
        models = sorted({m for s in everything for m in s.facts.talk.models})
        known.append("models here: " + (", ".join(models[:12]) or "none recorded"))
    if query.machine is not None:
        machines = sorted({s.machine for s in everything if s.machine})
        known.append("machines here: " + (", ".join(machines) or "none named"))
    if query.user is not None:
        users = sorted({s.user for s in everything if s.user})
        known.append("users here: " + (", ".join(users) or "none named"))
    return said + (
        f" ({'; '.join(known)})" if known else f" (of {counted(len(everything), 'session')})"
    )


COLUMNS = (
    Column("id"),
    Column("when"),
    Column("agent", drop=3),
    Column("project", fit="cut", least=8, ease=12, give=2),
    Column("title", fit="cut", least=8, ease=20, give=1),
    Column("calls", right=True),
    Column("failed", right=True),
    Column("tokens", right=True, drop=2),
    Column("cost", right=True, drop=1),
)
"""The table's columns, and how each gives way to a narrower terminal."""
OUTCOME = Column("outcome", fit="cut", least=8, ease=13, give=1, drop=2)
"""How a run ended, after ``failed``: shown where a listed session's harness wrote it."""
TEAM = (Column("machine", drop=2), Column("user", drop=3))
"""A team's store's sessions: the machine and the user, after the agent."""
WIDE = (
    Column("session"), Column("first (local)"), Column("last (local)"), Column("agent"),
    Column("project"), Column("title"), Column("models"), Column("events", right=True),
    Column("calls", right=True), Column("completed", right=True), Column("failed", right=True),
    Column("rejected", right=True), Column("open", right=True), Column("exit ≠ 0", right=True),
    Column("refused", right=True), Column("outcome"),
    Column("tokens (in / out / cache read / cache write)", right=True), Column("cost", right=True),
    Column("machine"), Column("user"),
)  # fmt: skip


def _table(page: list[Listed], rows: list[dict[str, Any]], names: dict[str, str],
           zone: tzinfo | None) -> str:  # fmt: skip
    this_year = all(
        listed.facts.ended is None or local(listed.facts.ended, zone).year
        == local(datetime.now().astimezone(), zone).year for listed in page
    )  # fmt: skip
    cells = [
        [
            in_line(names[listed.session_id]),
            _when(listed.facts.ended, zone, short=this_year),
            listed.facts.agent or "-",
            in_line(_project(row["project"])),
            in_line(row["title"] or "-"),
            f"{listed.counts.calls:,}",
            f"{listed.counts.failures:,}",
            "-" if row["tokens"] is None else short_count(row["tokens"]["total"]),
            _cost(row),
        ]
        for listed, row in zip(page, rows, strict=True)
    ]
    columns: tuple[Column, ...] = COLUMNS
    if any(_outcome(row) != "-" for row in rows):
        after = [c.header for c in columns].index("failed") + 1
        for line, row in zip(cells, rows, strict=True):
            line.insert(after, _outcome(row))
        columns = (*columns[:after], OUTCOME, *columns[after:])
    if any(listed.machine or listed.user for listed in page):  # a team's store: who, where
        for listed, line in zip(page, cells, strict=True):
            line[3:3] = [in_line(listed.machine or "-"), in_line(listed.user or "-")]
        columns = (*columns[:3], *TEAM, *columns[3:])
    return table(columns, cells, wide=False)


def _outcome(row: dict[str, Any]) -> str:
    """How the run ended, in a few words, where its harness wrote it."""
    outcome = (row["transcript"] or {}).get("outcome")
    return "-" if outcome is None else in_line(outcome["said"])


def _wide_cells(listed: Listed, row: dict[str, Any], zone: tzinfo | None) -> list[str]:
    counts = listed.counts
    return [in_line(listed.session_id), _when(listed.facts.started, zone, short=False),
            _when(listed.facts.ended, zone, short=False), listed.facts.agent or "-",
            in_line(row["project"] or "-"), in_line(row["title"] or "-"),
            in_line(", ".join(row["models"]) or "-"), f"{listed.facts.events:,}",
            f"{counts.calls:,}", f"{counts.completed:,}", f"{counts.failed:,}",
            f"{counts.rejected:,}", f"{counts.unfinished:,}", f"{counts.exited_nonzero:,}",
            f"{counts.refused:,}", _outcome(row), tokens_cell(row),
            _cost(row), in_line(listed.machine or "-"), in_line(listed.user or "-")]  # fmt: skip


def _when(moment: datetime | None, zone: tzinfo | None, *, short: bool) -> str:
    if moment is None:
        return "-"
    wall = local(moment, zone)
    return wall.strftime("%m-%d %H:%M" if short else "%Y-%m-%d %H:%M")


def _project(path: str | None) -> str:
    """A project as a list names it: the last part of its path."""
    if not path:
        return "-"
    return path.rstrip("/\\").rsplit("/", 1)[-1].rsplit("\\", 1)[-1] or path


def _cost(row: dict[str, Any]) -> str:
    if row["cost"] is not None:
        return dollars(Decimal(str(row["cost"])))
    return "?" if row["unpriced_models"] else "-"
