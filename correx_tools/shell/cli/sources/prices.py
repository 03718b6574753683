"""``--prices FILE``: the price table the commands count costs with."""

from __future__ import annotations

import argparse

from ....core.replay.pricing import PricesError, PriceTable
from ...replay.prices import load_prices
from ..errors import CliError


def prices_of(args: argparse.Namespace) -> PriceTable:
    """The table ``--prices`` asks for (the shipped one without it); a one-line error for a
    file that cannot be read as one, naming the file and the key."""
    try:
        return load_prices(getattr(args, "prices", None))
    except PricesError as error:
        raise CliError(str(error)) from None
