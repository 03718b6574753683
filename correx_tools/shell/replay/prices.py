"""The price table: the one shipped as data in the package, and a file that overrides it.

``prices.json`` beside this module holds the vendors' public prices, with where
and when they were read (see `correx_tools.core.replay.pricing`). A file given
with ``--prices FILE`` (TOML, or JSON: by its name's ending, ``.toml`` for TOML)
holds the same shape; its models are put over the shipped ones, so it need name
only those it changes or adds. A file that cannot be read, or whose data is not
a table of prices, is a `PricesError` whose one line names the file and the key.
"""

from __future__ import annotations

import json
from decimal import Decimal
from functools import cache
from importlib import resources

from ...core.replay.pricing import PricesError, PriceTable, prices_from
from ..option_files import OptionFileError, nested_too_deeply, read_option_file

SHIPPED = "prices.json"


@cache
def shipped_prices() -> PriceTable:
    """The table shipped in the package."""
    text = resources.files(__package__).joinpath(SHIPPED).read_text(encoding="utf-8")
    return prices_from(json.loads(text, parse_float=Decimal), SHIPPED)


def load_prices(path: str | None) -> PriceTable:
    """The shipped table, with the models of the file at ``path`` (if any) put over it."""
    if path is None:
        return shipped_prices()
    try:
        raw = read_option_file(path)
    except OptionFileError as error:
        raise PricesError(str(error)) from None
    import tomllib  # noqa: PLC0415 - only a --prices file may be TOML

    try:
        if path.endswith(".toml"):
            data: object = tomllib.loads(raw.decode("utf-8"), parse_float=Decimal)
        else:
            data = json.loads(raw.decode("utf-8"), parse_float=Decimal)
    except UnicodeDecodeError:
        raise PricesError(f"{path}: is not UTF-8 text") from None
    except tomllib.TOMLDecodeError as error:
        raise PricesError(f"{path}: is not TOML: {error}") from None
    except json.JSONDecodeError as error:
        raise PricesError(f"{path}: is not JSON: {error.msg} (line {error.lineno})") from None
    except RecursionError:
        raise PricesError(nested_too_deeply(path)) from None
    return shipped_prices().over(prices_from(data, path))
