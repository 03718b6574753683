"""How wide text is on a terminal, and text cut to a width there.

A terminal gives a wide character (East Asian wide or full-width: CJK, most emoji) two
columns, a combining mark or a zero-width character none, and anything else one
(Unicode's East Asian Width, as ``wcwidth`` and the terminals read it). The text measured
here is already visible (`render.visible`: no control character is left in it).

>>> cell_width("日本語 ok"), cut_end("日本語の説明です", 7)
(9, '日本語…')
"""

from __future__ import annotations

import unicodedata

ELLIPSIS = "…"
_ZERO = frozenset({"Mn", "Me", "Cf"})
"""Categories a terminal draws in no column: combining marks and format characters."""


def char_width(char: str) -> int:
    """The columns one character takes."""
    if char.isascii():
        return 1
    if unicodedata.category(char) in _ZERO:
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1


def cell_width(text: str) -> int:
    """The columns ``text`` takes."""
    if text.isascii():
        return len(text)
    return sum(char_width(char) for char in text)


def cut_end(text: str, width: int, mark: str = ELLIPSIS) -> str:
    """``text`` in at most ``width`` columns: cut at its end with ``mark`` (an ellipsis)
    where it is longer (a wide character that would straddle the edge goes whole)."""
    if cell_width(text) <= width:
        return text
    if width <= 0:
        return ""
    room, used, kept = width - cell_width(mark), 0, []
    for char in text:
        size = char_width(char)
        if used + size > room:
            break
        kept.append(char)
        used += size
    return "".join(kept) + mark
