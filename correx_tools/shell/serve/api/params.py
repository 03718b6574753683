"""Reading a request's parameters: each problem with one is an `ApiError` (a 400) naming the
parameter and what is wrong with it."""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import TypeVar

from ..errors import ApiError

T = TypeVar("T", bound=str)
DEFAULT_LIMIT = 100
MAX_LIMIT = 1_000


def whole(query: Mapping[str, str], name: str, default: int | None = None) -> int:
    """The parameter as a whole number (``default`` if absent; without one it is required)."""
    text = query.get(name)
    if text is None or text == "":
        if default is None:
            raise ApiError(400, f"{name} is required (a whole number)")
        return default
    if _WHOLE.fullmatch(text) is None:
        raise ApiError(400, f"{name}={text!r} is not a whole number")
    return int(text)


# ASCII digits only, one sign at most (str.isdigit takes any script's digits, and
# lstrip("-") took "--5"); eighteen digits at most, as no session is longer.
_WHOLE = re.compile(r"-?[0-9]{1,18}")


def sequence(query: Mapping[str, str], name: str, session: str, last: int, *,
             default: int | None = None) -> int:  # fmt: skip
    """A sequence of the session: a whole number from 0 to its last."""
    value = whole(query, name, default)
    if not 0 <= value <= last:
        raise ApiError(400, f"{name}={value} is outside session {session!r} (sequences 0..{last})")
    return value


def paging(query: Mapping[str, str]) -> tuple[int, int]:
    """``offset`` (from 0) and ``limit`` (default 100, at most 1,000)."""
    offset = whole(query, "offset", 0)
    limit = whole(query, "limit", DEFAULT_LIMIT)
    if offset < 0:
        raise ApiError(400, f"offset={offset} is negative")
    if not 1 <= limit <= MAX_LIMIT:
        raise ApiError(400, f"limit={limit} is not between 1 and {MAX_LIMIT:,}")
    return offset, limit


def choice(query: Mapping[str, str], name: str, allowed: tuple[T, ...], default: T) -> T:
    """One of ``allowed``."""
    value = query.get(name) or default
    for known in allowed:
        if value == known:
            return known
    raise ApiError(400, f"{name}={value!r} is not one of {', '.join(allowed)}")
