"""A usage report added up by the database: the rows `usage.usage_rows` makes from the
activity windows, without reading each window into Python.

The windows are summed per row and model in SQL (the calls, the usage records and the
four counts of tokens), and the sessions of each row counted there; the cost is then
found per row and model (a price is linear in the tokens: the cost of a sum is the sum
of the costs, exactly, in decimal). A day, week or month is found for each quarter the
windows hold (the zone's offset may change within a range, so never for a range at
once), and the quarters are grouped into runs of one key that the SQL reads as ranges.
Blocks follow the usages one by one (`usage._blocks`): they are made from the windows.
``tests/test_catalog_store.py`` holds every report to `usage_rows`.
"""

from __future__ import annotations

from collections import defaultdict
from decimal import Decimal
from typing import Any

from ....core.catalog.listing import SessionQuery
from ....core.catalog.usage import NONE_KEY, By, Local, Report, UsageRow, time_key, usage_rows
from ....core.lifecycle.conversation import TokenUsage
from ....core.replay.pricing import Price
from .catalog_query import activity, picked, quarter_bounds
from .dialect import Cursor, Dialect

_CATALOGUED = ("project", "agent", "machine", "user", "session")
"""What a row is that the catalog's row of a window's session says."""
_KEYED = {
    "project": "c.project",
    "agent": "c.agent",
    "machine": "c.machine",
    "user": "c.user_name",
    "session": "c.name",
    "model": "a.model",
}


def usage(
    d: Dialect, cursor: Cursor, query: SessionQuery, report: Report
) -> tuple[list[UsageRow], UsageRow]:
    """The report's rows and total, as `usage_rows` makes them from `activity`."""
    by, local, prices = report.by, report.local, report.prices
    since, until = report.since, report.until
    if by == "block":
        entries = activity(d, cursor, query, since, until)
        return usage_rows(entries, by, local=local, prices=prices)
    where, parameters = picked(d, query, "c")
    bounds, bounded = quarter_bounds(since, until)
    tests = [test for test in (where, bounds) if test]
    condition = f"WHERE {' AND '.join(tests)}" if tests else ""
    source = "FROM {activity} a"
    if where or by in _CATALOGUED:
        # Every window's session is catalogued (its windows are written and removed with
        # its row), so the catalog is joined only to filter or to key by it.
        source += " JOIN {catalog} c ON c.{session} = a.{session}"
    arguments: tuple[Any, ...] = (*parameters, *bounded)
    if by in _KEYED:
        key, keyed = _KEYED[by], ()
    else:
        key, keyed = time_case(
            d, cursor, by, local, source=f"{source} {condition}", arguments=arguments
        )
    windows = keyed_windows(f"{key} AS k", f"{source} {condition}")
    sums = summed(d, cursor, windows, "k", (*keyed, *arguments))
    sessions = cursor.execute(
        d.sql(f"SELECT k, COUNT(DISTINCT s) FROM {windows} GROUP BY k"), (*keyed, *arguments)
    ).fetchall()
    everyone = cursor.execute(
        d.sql(f"SELECT COUNT(DISTINCT a.{{session}}) {source} {condition}"), arguments
    ).fetchone()[0]
    named = {_named(d, by, found): int(count) for found, count in sessions}
    tallies: dict[str, Tally] = defaultdict(Tally)
    total = Tally()
    for found, model, calls, messages, *tokens in sums:
        name, model_name = _named(d, by, found), d.text(model)
        used = TokenUsage.unchecked(*(int(count) for count in tokens))
        price = None if model_name is None else prices.price(model_name)
        for tally in (tallies[name], total):
            tally.add(price, int(calls), int(messages), used)
    rows = [tally.row(name, named.get(name, 0)) for name, tally in tallies.items()]
    if by in ("day", "week", "month"):
        rows.sort(key=lambda row: (row.key == NONE_KEY, row.key))
    else:
        rows.sort(key=lambda row: (-row.tokens.total, -row.calls, row.key))
    return rows, total.row("total", int(everyone))


def keyed_windows(keys: str, source: str) -> str:
    """The windows of ``source`` (its ``FROM`` and ``WHERE``), each keyed once in a
    subquery ``w`` (so that the keys' parameters are given once): ``keys`` (``expr AS
    name, ...``), the session ``s``, the model ``m``, the calls, messages and tokens."""
    return (
        f"(SELECT {keys}, a.{{session}} AS s, a.model AS m, a.calls, a.messages, a.input, "
        f"a.output, a.cache_read, a.cache_write {source}) w"
    )


def summed(d: Dialect, cursor: Cursor, windows: str, keys: str,
           parameters: tuple[Any, ...]) -> list[Any]:  # fmt: skip
    """Each key's and model's sums over `keyed_windows`: the keys (``keys``, by name), the
    model, the calls, the messages and the four counts of tokens."""
    return list(
        cursor.execute(
            d.sql(
                f"SELECT {keys}, m, SUM(calls), SUM(messages), SUM(input), SUM(output), "
                f"SUM(cache_read), SUM(cache_write) FROM {windows} GROUP BY {keys}, m"
            ),
            parameters,
        ).fetchall()
    )


def _named(d: Dialect, by: By, found: Any) -> str:
    if by in ("day", "week", "month"):
        return str(found)
    return d.text(found) or NONE_KEY


def time_case(
    d: Dialect, cursor: Cursor, by: By, local: Local, *, source: str, arguments: tuple[Any, ...]
) -> tuple[str, tuple[Any, ...]]:
    """A ``CASE`` that names each window's day, week or month from its quarter (the windows
    of no time `NONE_KEY`), and its parameters."""
    quarters = [
        row[0]
        for row in cursor.execute(
            d.sql(f"SELECT DISTINCT a.quarter {source} ORDER BY 1"), arguments
        ).fetchall()
        if row[0] is not None
    ]
    runs: list[tuple[int, str]] = []  # each run's last quarter and its key
    for quarter in quarters:
        key = time_key(by, int(quarter), local)  # type: ignore[arg-type]
        if runs and runs[-1][1] == key:
            runs[-1] = (quarter, key)
        else:
            runs.append((quarter, key))
    if not runs:  # every window is of no time
        return f"'{NONE_KEY}'", ()
    cases, parameters = _halving(runs)
    return f"(CASE WHEN a.quarter IS NULL THEN '{NONE_KEY}' ELSE {cases} END)", parameters


def _halving(runs: list[tuple[int, str]]) -> tuple[str, tuple[Any, ...]]:
    """A ``CASE`` naming a quarter's key by halving the runs (each its last quarter and its
    key, in order; a quarter past the last is the last run's): a window is keyed in as many
    comparisons as the halvings, not one per run before its own."""
    if len(runs) == 1:
        return "?", (runs[0][1],)
    middle = len(runs) // 2
    low, low_parameters = _halving(runs[:middle])
    high, high_parameters = _halving(runs[middle:])
    last = runs[middle - 1][0]
    return (f"(CASE WHEN a.quarter <= ? THEN {low} ELSE {high} END)",
            (last, *low_parameters, *high_parameters))  # fmt: skip


class Tally:
    """One row's sums, as `usage._Tally` adds them up from windows."""

    def __init__(self) -> None:
        self.calls = 0
        self.tokens = TokenUsage()
        self.cost = Decimal(0)
        self.priced = False
        self.unpriced = 0

    def add(self, price: Price | None, calls: int, messages: int, used: TokenUsage) -> None:
        """A model's sums, at its price (``None``: it has none)."""
        self.calls += calls
        if not messages:
            return
        self.tokens = self.tokens + used
        if price is None:
            self.unpriced += used.total
        else:
            self.cost += price.of(used)
            self.priced = True

    def row(self, key: str, sessions: int) -> UsageRow:
        return UsageRow(key=key, sessions=sessions, calls=self.calls, tokens=self.tokens,
                        cost=self.cost if self.priced else None,
                        unpriced_tokens=self.unpriced)  # fmt: skip
