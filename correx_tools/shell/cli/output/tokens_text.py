"""Tokens and their cost as the commands say them: counts, dollars, a cost or the model
with no price (``sessions``, ``usage``, ``history``, and `tokens_table` for ``stats``)."""

from __future__ import annotations

from decimal import Decimal

from ....core.lifecycle.conversation import TokenUsage
from ....core.replay.pricing import PriceTable, cost_of
from ....core.replay.spending import Spent
from ...replay.spent import no_price

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
