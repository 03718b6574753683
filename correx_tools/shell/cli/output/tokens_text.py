"""What ``stats`` says of a session's tokens and their cost: in all, by turn, and the calls
that spent most (``--json`` has every call's share)."""

from __future__ import annotations

from collections.abc import Mapping
from decimal import Decimal

from ....core.lifecycle.conversation import TokenUsage
from ....core.replay.pricing import PriceTable, cost_of
from ....core.replay.spending import Spent
from ....core.replay.talk_summary import cut_title
from ...replay.spent import Talked, no_price
from .render import one_line, table

TOP_CALLS = 10
"""How many calls the text lists by their tokens, most first."""
NONE_RECORDED = "none recorded"


def counts_text(usage: TokenUsage) -> str:
    """``total (in / out / cache read / cache write)``."""
    parts = (usage.input, usage.output, usage.cache_read, usage.cache_write)
    return f"{usage.total:,} ({' / '.join(f'{n:,}' for n in parts)})"


def spent_text(spent: Spent | None) -> str:
    """Tokens as a cell shows them: their total, or that none were recorded (never 0)."""
    return NONE_RECORDED if spent is None else f"{spent.total.total:,}"


def dollars(amount: Decimal) -> str:
    """``$1,234.56``, or four places under a dollar (``$0.0312``)."""
    return f"${amount:,.2f}" if amount >= 1 else f"${amount:.4f}"


def short_count(count: int) -> str:
    """A count in at most five characters: ``987``, ``9.9k``, ``676k``, ``12.3M``, ``4.1B``.

    >>> [short_count(n) for n in (987, 9_876, 675_602, 12_345_678)]
    ['987', '9.9k', '676k', '12.3M']
    """
    for size, unit in ((10**9, "B"), (10**6, "M"), (10**3, "k")):
        if count >= size:
            value = count / size
            return f"{value:.1f}{unit}" if value < 100 else f"{value:.0f}{unit}"
    return str(count)


def cost_text(spent: Spent | None, prices: PriceTable) -> str:
    """What tokens cost, or ``no price for MODEL``; nothing where none were recorded."""
    cost = cost_of(spent, prices)
    if cost is None:
        return "-"
    return dollars(cost.amount) if cost.amount is not None else no_price(list(cost.unpriced)) or ""


def tokens_text(talk: Talked, tools: Mapping[str, str], prices: PriceTable) -> list[str]:
    """The lines ``stats`` adds for a session that holds a conversation."""
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
    rows = [
        (
            str(turn.number),
            "" if turn.prompt is None else cut_title(one_line(talk.titles.get(turn.prompt, ""))),
            f"{turn.first}-{turn.last}",
            turn.calls,
            spent_text(turn.spent),
            cost_text(turn.spent, prices),
        )
        for turn in found.turns
    ]
    headers = ["turn", "prompt", "sequences", "calls", "tokens", "cost"]
    lines += ["", table(headers, rows, squeeze=("prompt",))]
    ranked = sorted(found.calls.items(), key=lambda item: -item[1].total.total)
    if ranked:
        shown = ranked[:TOP_CALLS]
        heading = f"calls by tokens (the {len(shown)} that spent most of {len(ranked):,}):"
        rows_calls = [
            (
                one_line(invocation),
                one_line(tools.get(invocation, "")),
                spent_text(spent),
                cost_text(spent, prices),
            )
            for invocation, spent in shown
        ]
        calls_table = table(["call", "tool", "tokens", "cost"], rows_calls, squeeze=("call",))
        lines += ["", heading, calls_table]
    if found.unattributed is not None:
        lines.append(
            f"spent on words alone (no call): {counts_text(found.unattributed.total)}, "
            f"{cost_text(found.unattributed, prices)}"
        )
    return lines
