"""Usage by day, split by project, model, machine or user (a team's cost per person): the
layers a chart stacks on each day's bar.

Each layer is `usage_rows` by day over the windows of one project (or model ...), so a
layer's day is counted exactly as the day's own row is: a day's layers add up to its
row's tokens and cost (their sum, where some layer is priced). By model, the windows of
calls alone (which no model makes, and which spend no tokens) are in no layer. The layers
come most tokens first; past `MOST`, the rest are folded into one layer, `OTHER`, that
names what it holds.

>>> from datetime import UTC, datetime
>>> from correx_tools.core.catalog.activity import Window, quarter_of
>>> from correx_tools.core.catalog.facts import SessionFacts
>>> from correx_tools.core.catalog.listing import CallCounts, Listed
>>> from correx_tools.core.lifecycle.conversation import TokenUsage
>>> from correx_tools.core.replay.pricing import PriceTable
>>> quarter = quarter_of(datetime(2026, 12, 1, 9, tzinfo=UTC))
>>> listed = Listed(session_id="s", facts=SessionFacts(), counts=CallCounts())
>>> used = Window(messages=1, tokens=TokenUsage(output=5))
>>> entries = [(listed, quarter, "a", used), (listed, quarter, "b", used)]
>>> layers = stacked(entries, "model", local=lambda t: t, prices=PriceTable(models={}))
>>> [(layer.key, [(row.key, row.tokens.total) for row in layer.rows]) for layer in layers]
[('a', [('2026-12-01', 5)]), ('b', [('2026-12-01', 5)])]
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal, final

from ..replay.pricing import PriceTable
from .usage import NONE_KEY, Entry, Local, UsageRow, usage_rows

Stack = Literal["project", "model", "machine", "user"]
STACKS: tuple[Stack, ...] = ("project", "model", "machine", "user")
"""What a day's usage can be split by."""
MOST = 8
"""The most layers: past it, the layers with the fewest tokens are folded into one."""
OTHER = "other"
"""The key of the layer the rest are folded into."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Layer:
    """One project's (or model's) usage by day: its rows, as `usage_rows` by day gives
    them; ``rest`` names the keys folded into the `OTHER` layer (empty for any other)."""

    key: str
    rows: list[UsageRow]
    rest: tuple[str, ...] = ()


def stacked(entries: Iterable[Entry], stack: Stack, *, local: Local, prices: PriceTable,
            most: int = MOST) -> list[Layer]:  # fmt: skip
    """The layers of ``entries`` split by ``stack``, most tokens first (see the module
    docstring)."""
    groups: dict[str, list[Entry]] = {}
    for entry in entries:
        listed, _, model, window = entry
        if stack == "model":
            if not window.messages:
                continue  # calls alone: no model's, and no tokens
            key = model or NONE_KEY
        elif stack == "machine":
            key = listed.machine or NONE_KEY
        elif stack == "user":
            key = listed.user or NONE_KEY
        else:
            key = listed.facts.project or NONE_KEY
        groups.setdefault(key, []).append(entry)
    spent = {key: sum(e[3].tokens.total for e in group) for key, group in groups.items()}
    ordered = sorted(groups, key=lambda key: (-spent[key], key))
    kept = ordered if len(ordered) <= most else ordered[: most - 1]
    layers = [Layer(key=key, rows=_by_day(groups[key], local, prices)) for key in kept]
    rest = tuple(ordered[len(kept) :])
    if rest:
        folded = [entry for key in rest for entry in groups[key]]
        layers.append(Layer(key=OTHER, rows=_by_day(folded, local, prices), rest=rest))
    return layers


def _by_day(entries: list[Entry], local: Local, prices: PriceTable) -> list[UsageRow]:
    rows, _ = usage_rows(entries, "day", local=local, prices=prices)
    return rows
