"""What tokens cost: a price table per model, read from data, and the cost of tokens spent.

A table gives each model four prices in US dollars per million tokens: input (not
read from a cache), output, cache read and cache write. A model is looked up by
its name as the transcript records it, then (for a name ending in a date, as
``claude-sonnet-4-5-20250929`` does) by the name without the date. A model the
table does not hold, or a message whose model is not recorded, has no price: its
cost is not made up, and `Cost.unpriced` names it. Money is `Decimal`, so the
shares of a message add up to the message's cost exactly.

>>> table = prices_from({"models": {"m": {"input": 3, "output": 15, "cache_read": "0.3",
...                                       "cache_write": "3.75"}}}, "prices.json")
>>> from correx_tools.core.lifecycle.conversation import TokenUsage
>>> from correx_tools.core.replay.spending import Spent
>>> cost_of(Spent(by_model=(("m", TokenUsage(input=1_000_000, output=2)),)), table)
Cost(amount=Decimal('3.00003'), unpriced=())
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from decimal import Decimal, InvalidOperation
from typing import final

import re2

from ..lifecycle.conversation import TokenUsage
from .spending import Spent

_COUNTS = ("input", "output", "cache_read", "cache_write")
_MILLION = Decimal(1_000_000)
_HIGHEST = Decimal(1_000_000)
"""The highest price a table may give, dollars per million tokens."""
_DATED = re2.compile(r"^(.+)-(?:20[0-9]{6}|20[0-9]{2}-[0-9]{2}-[0-9]{2})$")
_KEPT_AT_MOST = 4_096
"""Models whose price `PriceTable.price` keeps once looked up."""
NO_MODEL = "(model not recorded)"
"""What `Cost.unpriced` names a message whose model is not recorded by."""


class PricesError(ValueError):
    """A price table that cannot be read: its one line names the file and the key."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Price:
    """A model's prices, US dollars per million tokens."""

    input: Decimal
    output: Decimal
    cache_read: Decimal
    cache_write: Decimal

    def of(self, usage: TokenUsage) -> Decimal:
        """What ``usage`` costs at these prices."""
        return (
            usage.input * self.input
            + usage.output * self.output
            + usage.cache_read * self.cache_read
            + usage.cache_write * self.cache_write
        ) / _MILLION


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class PriceTable:
    """Prices by model, with where they were read (``sources``) and when (``read``)."""

    models: Mapping[str, Price] = field(hash=False)
    sources: tuple[str, ...] = ()
    read: str | None = None
    _found: dict[str, Price | None] = field(
        init=False, default_factory=dict, repr=False, compare=False, hash=False
    )
    """Each model's price once looked up (a model is asked for again and again: a name with
    a date is matched by a regular expression)."""

    def price(self, model: str) -> Price | None:
        """The model's price: by its name, else by its name without a date at its end."""
        if model in self._found:
            return self._found[model]
        found = self.models.get(model)
        if found is None:
            dated = _DATED.match(model)
            if dated is not None:
                found = self.models.get(dated.group(1))
        if len(self._found) < _KEPT_AT_MOST:  # the names are agent-written: bounded
            self._found[model] = found
        return found

    def over(self, other: PriceTable) -> PriceTable:
        """This table with ``other``'s models put over it (a file that overrides a few)."""
        return PriceTable(
            models={**self.models, **other.models},
            sources=(*self.sources, *other.sources),
            read=other.read or self.read,
        )


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Cost:
    """What tokens cost: ``amount`` in US dollars, ``None`` when any of them has no price
    (``unpriced`` names those models, in the order first seen)."""

    amount: Decimal | None
    unpriced: tuple[str, ...] = ()


def cost_of(spent: Spent | None, table: PriceTable) -> Cost | None:
    """What ``spent`` costs at ``table``'s prices; ``None`` for no tokens recorded."""
    if spent is None:
        return None
    amount = Decimal(0)
    unpriced: list[str] = []
    for model, usage in spent.by_model:
        price = None if model is None else table.price(model)
        if price is None:
            unpriced.append(NO_MODEL if model is None else model)
        else:
            amount += price.of(usage)
    return Cost(amount=None if unpriced else amount, unpriced=tuple(unpriced))


def prices_from(data: object, where: str) -> PriceTable:
    """A table from a file's data (``{"models": {NAME: {"input": ..., ...}}, "sources":
    [...], "read": "YYYY-MM-DD"}``, numbers as numbers or strings); a `PricesError`
    naming ``where`` and the key for anything else."""
    if not isinstance(data, Mapping):
        raise PricesError(f"{where}: must hold a table with `models`")
    models = data.get("models")
    if not isinstance(models, Mapping):
        raise PricesError(f"{where}: models: must be a table of models, each with its prices")
    table: dict[str, Price] = {}
    for name, prices in models.items():
        if not isinstance(prices, Mapping):
            raise PricesError(f"{where}: models.{name}: must be a table of the four prices")
        unknown = sorted(set(prices) - set(_COUNTS))
        if unknown:
            raise PricesError(f"{where}: models.{name}.{unknown[0]}: is not one of "
                              f"{', '.join(_COUNTS)}")  # fmt: skip
        for needed in ("input", "output"):
            if needed not in prices:
                raise PricesError(f"{where}: models.{name}.{needed}: is missing")
        values = {
            key: _money(prices[key], f"{where}: models.{name}.{key}") if key in prices else _NONE
            for key in _COUNTS
        }
        table[str(name)] = Price(**values)
    sources = data.get("sources", ())
    if not isinstance(sources, list | tuple) or not all(isinstance(s, str) for s in sources):
        raise PricesError(f"{where}: sources: must be a list of addresses")
    read = data.get("read")
    if read is not None and not isinstance(read, str):
        raise PricesError(f"{where}: read: must be the date the prices were read, as text")
    return PriceTable(models=table, sources=tuple(sources), read=read)


_NONE = Decimal(0)
"""A cache price left out: the vendor charges none."""


def _money(value: object, where: str) -> Decimal:
    """A price: a number at least 0 (``null`` is no price: a price left out is said so, not
    counted as free)."""
    if isinstance(value, bool) or not isinstance(value, int | float | str | Decimal):
        raise PricesError(f"{where}: must be a number of dollars per million tokens")
    try:
        money = Decimal(str(value))
    except InvalidOperation:
        raise PricesError(f"{where}: {str(value)[:40]!r} is not a number") from None
    if not money.is_finite() or money < 0:
        raise PricesError(f"{where}: must be a number at least 0, not {str(value)[:40]}")
    if money > _HIGHEST:
        # No model costs so much; a price like 1e999999 would make every cost a number of a
        # million digits.
        raise PricesError(f"{where}: must be at most {_HIGHEST:,} dollars per million tokens")
    return money
