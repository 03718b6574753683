"""``correx-tools usage``: what sessions spent, added up by day, week, month, project,
model, agent, machine, user, session or 5-hour block: sessions, calls, tokens and cost per
row, and in total.

Days are local (``--tz`` to choose), as ccusage counts them; a block is ccusage's 5-hour
window. Cost comes from the shipped price table (``--prices`` puts a file over it); a
model with no price is counted as unpriced, never as $0. The rules are
`correx_tools.core.catalog.usage`'s.
"""

from __future__ import annotations

import argparse
import csv
import io

from ....core.catalog.usage import BY, Report, UsageRow
from ...catalog.picking import usage_of
from ...catalog.rows import usage_row_json
from .. import arguments
from ..output.render import emit, in_line
from ..output.tables import Column, table
from ..output.tokens_text import dollars, short_count
from ..sources.catalogs import catalog_for
from ..sources.filters import local, query_of, zone_of
from ..sources.prices import prices_of
from ..sources.stores import open_source_or_agents


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools usage``."""
    arguments.add_source(parser, optional=True)
    parser.add_argument(
        "--by",
        choices=BY,
        default="day",
        metavar="KEY",
        help=f"what a row is: {', '.join(BY)} (default: %(default)s)",
    )
    arguments.add_session_filters(parser)
    parser.add_argument("--csv", action="store_true", help="print the rows as CSV")
    arguments.add_shown_arguments(parser, masked=False)
    arguments.add_prices_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools usage``; the exit status."""
    query, zone, prices = query_of(args), zone_of(args), prices_of(args)
    store, label = open_source_or_agents(args.source)
    catalog = catalog_for(store, label)
    # The filters pick sessions; --since and --until also bound the activity counted.
    report = Report(by=args.by, local=lambda t: local(t, zone), prices=prices,
                    since=query.since, until=query.until)  # fmt: skip
    rows, total = usage_of(catalog, query, report)
    if args.csv:
        print(_csv(rows, total), end="", flush=True)
        return 0
    document = {"source": label, "by": args.by, "rows": [usage_row_json(r) for r in rows],
                "total": usage_row_json(total)}  # fmt: skip
    emit(args, document, lambda: _text(args.by, rows, total, wide=args.wide))
    return 0


CSV_HEADER = ("key", "sessions", "calls", "input", "output", "cache_read", "cache_write",
              "total_tokens", "cost", "unpriced_tokens")  # fmt: skip


def _csv(rows: list[UsageRow], total: UsageRow) -> str:
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    for row in [*rows, total]:
        t = row.tokens
        cost = "" if row.cost is None else f"{row.cost:.6f}"
        counts = [t.input, t.output, t.cache_read, t.cache_write, t.total]
        writer.writerow([_safe(row.key), row.sessions, row.calls, *counts, cost,
                         row.unpriced_tokens])  # fmt: skip
    return out.getvalue()


def _safe(key: str) -> str:
    """A key as a spreadsheet reads it as text: one that begins as a formula would is
    quoted with a leading apostrophe (a project's path or a model's name is agent-written)."""
    return f"'{key}" if key[:1] in ("=", "+", "-", "@", "\t", "\r") and key != "-" else key


COLUMNS = (
    Column("key", fit="cut", least=10, ease=28, give=1),
    Column("sessions", right=True, drop=3),
    Column("calls", right=True, drop=2),
    Column("input", right=True, drop=5),
    Column("output", right=True, drop=4),
    Column("cache read", right=True, drop=6),
    Column("cache write", right=True, drop=6),
    Column("tokens", right=True),
    Column("cost", right=True),
)


def _text(by: str, rows: list[UsageRow], total: UsageRow, *, wide: bool) -> str:
    if not rows:
        return "no usage recorded"

    def count(n: int) -> str:
        return f"{n:,}" if wide else short_count(n)

    cells = [
        [in_line(row.key), f"{row.sessions:,}", f"{row.calls:,}", count(row.tokens.input),
         count(row.tokens.output), count(row.tokens.cache_read), count(row.tokens.cache_write),
         count(row.tokens.total), _cost(row)]
        for row in [*rows, total]
    ]  # fmt: skip
    cells[-1][0] = "total"
    shown = table((Column(by, fit="cut", least=10, ease=28, give=1), *COLUMNS[1:]), cells,
                  wide=wide)  # fmt: skip
    lines = shown.split("\n")
    lines.insert(len(lines) - 1, lines[1])  # a rule above the total
    if total.unpriced_tokens:
        lines.append(
            f"{total.unpriced_tokens:,} tokens of models with no price are not in the cost "
            "(--prices FILE gives them one)"
        )
    return "\n".join(lines)


def _cost(row: UsageRow) -> str:
    if row.cost is None:
        return "?" if row.unpriced_tokens else "-"
    shown = dollars(row.cost)
    return shown + ("+" if row.unpriced_tokens else "")
