"""A day's usage split by project, model, machine or user (`core.catalog.stacks`), added
up by the database: the layers `stacked` makes from the activity windows, without reading
each window into Python (at ten million events the windows took seconds to read).

The windows are summed per layer, day and model in SQL, as `catalog_usage` sums them per
row and model; a layer's sessions on a day are counted from the distinct (layer, day,
session) the windows hold, so that the layer the rest are folded into counts a session of
two of its keys once, as `stacked` does. ``tests/test_catalog_store.py`` holds the layers
to `stacked`.
"""

from __future__ import annotations

from collections import defaultdict
from typing import Any

from ....core.catalog.listing import SessionQuery
from ....core.catalog.stacks import MOST, OTHER, Layer, Stack
from ....core.catalog.usage import NONE_KEY, Report, UsageRow
from ....core.lifecycle.conversation import TokenUsage
from .catalog_query import picked, quarter_bounds
from .catalog_usage import Tally, keyed_windows, summed, time_case
from .dialect import Cursor, Dialect

_LAYERED = {"project": "c.project", "machine": "c.machine", "user": "c.user_name",
            "model": "a.model"}  # fmt: skip


def stacked_usage(
    d: Dialect, cursor: Cursor, query: SessionQuery, report: Report, stack: Stack, *,
    most: int = MOST,
) -> list[Layer]:  # fmt: skip
    """The layers `stacked` makes of the windows of the sessions ``query`` picks in the
    report's range, by day in the report's zone."""
    where, parameters = picked(d, query, "c")
    bounds, bounded = quarter_bounds(report.since, report.until)
    tests = [test for test in (where, bounds) if test]
    if stack == "model":
        tests.append("a.messages <> 0")  # calls alone: no model's, and no tokens
    condition = f"WHERE {' AND '.join(tests)}" if tests else ""
    source = "FROM {activity} a"
    if where or stack != "model":
        source += " JOIN {catalog} c ON c.{session} = a.{session}"
    arguments: tuple[Any, ...] = (*parameters, *bounded)
    day, keyed = time_case(
        d, cursor, "day", report.local, source=f"{source} {condition}", arguments=arguments
    )
    windows = keyed_windows(f"{_LAYERED[stack]} AS l, {day} AS k", f"{source} {condition}")
    sums = summed(d, cursor, windows, "l, k", (*keyed, *arguments))
    met = cursor.execute(
        d.sql(f"SELECT DISTINCT l, k, s FROM {windows}"), (*keyed, *arguments)
    ).fetchall()
    tallies: dict[str, dict[str, list[tuple[Any, int, int, TokenUsage]]]] = defaultdict(dict)
    spent: dict[str, int] = defaultdict(int)
    for layer, found, model, calls, messages, *tokens in sums:
        key, name = d.text(layer) or NONE_KEY, str(found)
        used = TokenUsage.unchecked(*(int(count) for count in tokens))
        model_name = d.text(model)
        price = None if model_name is None else report.prices.price(model_name)
        tallies[key].setdefault(name, []).append((price, int(calls), int(messages), used))
        spent[key] += used.total
    sessions: dict[str, dict[str, set[Any]]] = defaultdict(lambda: defaultdict(set))
    for layer, found, session in met:
        sessions[d.text(layer) or NONE_KEY][str(found)].add(session)
    ordered = sorted(tallies, key=lambda key: (-spent[key], key))
    kept = ordered if len(ordered) <= most else ordered[: most - 1]
    layers = [Layer(key=key, rows=_rows([key], tallies, sessions)) for key in kept]
    rest = tuple(ordered[len(kept) :])
    if rest:
        layers.append(Layer(key=OTHER, rows=_rows(rest, tallies, sessions), rest=rest))
    return layers


def _rows(
    keys: tuple[str, ...] | list[str],
    tallies: dict[str, dict[str, list[tuple[Any, int, int, TokenUsage]]]],
    sessions: dict[str, dict[str, set[Any]]],
) -> list[UsageRow]:
    """The rows by day of the layers ``keys`` together, in the order of days."""
    days: dict[str, Tally] = defaultdict(Tally)
    met: dict[str, set[Any]] = defaultdict(set)
    for key in keys:
        for name, sums in tallies[key].items():
            for price, calls, messages, used in sums:
                days[name].add(price, calls, messages, used)
        for name, found in sessions[key].items():
            met[name] |= found
    rows = [tally.row(name, len(met[name])) for name, tally in days.items()]
    rows.sort(key=lambda row: (row.key == NONE_KEY, row.key))
    return rows
