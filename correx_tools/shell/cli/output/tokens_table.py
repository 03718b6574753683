"""What ``stats`` says of a session's tokens and their cost: in all, by turn, and the calls
that added most (``--json`` has every call's share).

A call's share of its message's tokens holds the whole context the message re-read from
the cache; in a long session every late call carries more of it than any early one. So
the calls are ranked by what each *added*: its share of the new input (``input`` and
``cache_write``) and of the output, never the context read back (``cache_read``). A
model with no price is named once, under the table, not in every row."""

from __future__ import annotations

from collections.abc import Mapping

from ....core.replay.pricing import PriceTable, cost_of
from ....core.replay.spending import Spent
from ....core.replay.talk_summary import cut_title
from ...replay.spent import Talked, no_price
from .calls_table import Shown, shown_ids
from .render import one_line
from .tables import Column, table
from .tokens_text import cost_text, counts_text, dollars, spent_text

TOP_CALLS = 10
"""How many calls the text lists by their tokens, most first."""


def added(spent: Spent) -> int:
    """The tokens a call's share added: new input and output, not the cached context."""
    usage = spent.total
    return usage.input + usage.cache_write + usage.output


class _Costs:
    """Costs as a table's cells say them: ``?`` for tokens of a model with no price, each
    such model noted once for the line under the table."""

    def __init__(self, prices: PriceTable) -> None:
        self.prices, self.unpriced = prices, dict[str, None]()

    def cell(self, spent: Spent | None) -> str:
        cost = cost_of(spent, self.prices)
        if cost is None:
            return "-"
        if cost.amount is None:
            self.unpriced.update(dict.fromkeys(cost.unpriced))
            return "?"
        return dollars(cost.amount)

    def note(self) -> list[str]:
        said = no_price(list(self.unpriced))
        return [] if said is None else [f"?: {said} (--prices FILE gives one)"]


TURNS = (
    Column("turn", right=True),
    Column("prompt", fit="cut", least=10, ease=24, give=1),
    Column("sequences", drop=1),
    Column("calls", right=True),
    Column("tokens", right=True),
    Column("cost", right=True),
)
CALLS = (
    Column("tool", fit="cut", least=6, ease=12, give=2),
    Column("added", right=True),
    Column("tokens", right=True, drop=1),
    Column("cost", right=True),
)


def top_calls(talk: Talked) -> list[str]:
    """The calls that added most tokens, most first (`TOP_CALLS` of them)."""
    ranked = sorted(talk.spending.calls.items(), key=lambda item: -added(item[1]))
    return [invocation for invocation, _ in ranked[:TOP_CALLS]]


def tokens_text(
    talk: Talked, tools: Mapping[str, str], prices: PriceTable, shown: Shown, *, wide: bool
) -> list[str]:
    """The lines ``stats`` adds for a session that holds a conversation (``shown``: how
    its calls are named)."""
    found = talk.spending
    if found.spent is None:
        if not talk.said:  # left out at import, or a format that records no conversation
            return ["", "tokens: none in the store (it holds no conversation)"]
        return ["", "tokens: none recorded (the transcript records no usage)"]
    lines = [
        "",
        f"tokens: {counts_text(found.spent.total)} (in / out / cache read / cache write)",
        f"cost: {cost_text(found.spent, prices)} (prices read {prices.read or 'on no date'}"
        f" from {', '.join(prices.sources) or 'the prices file'})",
    ]
    if len(found.spent.by_model) > 1:
        lines += [f"  {model or '(model not recorded)'}: {counts_text(usage)}"
                  for model, usage in found.spent.by_model]  # fmt: skip
    costs = _Costs(prices)
    rows = [
        (
            turn.number,
            ""
            if turn.prompt is None
            else shown.text(cut_title(one_line(talk.titles.get(turn.prompt, "")))),
            f"{turn.first}-{turn.last}",
            turn.calls,
            spent_text(turn.spent),
            costs.cell(turn.spent),
        )
        for turn in found.turns
    ]
    lines += ["", table(TURNS, rows, wide=wide)]
    top = top_calls(talk)
    if top:
        heading = (
            f"top {len(top)} of {len(found.calls):,} calls by tokens added (new input and "
            "output, not the cached context):"
        )
        ids = shown_ids(shown.session, top)
        rows_calls = [
            (
                ids[invocation],
                shown.text(tools.get(invocation, "")),
                added(found.calls[invocation]),
                spent_text(found.calls[invocation]),
                costs.cell(found.calls[invocation]),
            )
            for invocation in top
        ]
        columns = (shown.id_column("call", ids), *CALLS)
        lines += ["", heading, table(columns, rows_calls, wide=wide)]
    lines += costs.note()
    if found.unattributed is not None:
        lines.append(
            f"spent on words alone (no call): {counts_text(found.unattributed.total)}, "
            f"{cost_text(found.unattributed, prices)}"
        )
    return lines
