"""A table that fits the width it is given: the columns a person needs at that width, long
text cut at its end, ids never cut below the form that tells them apart.

Each `Column` says how it may give way: a ``keep`` column (a time, a count) is never
cut; an ``id`` column is cut first, to a start of each id never shorter than its
``least`` (the caller's unique short form of every id in it: a start no other id shares,
which any command takes for the whole id), with no ellipsis, as git shortens a commit's
id; a ``cut`` column (a title, a project) is cut at its end with an ellipsis, the one
with the highest ``give`` first. Cutting goes first down to each column's ``ease``
(the width it still reads well at); then the columns with a ``drop`` rank are left out,
the highest rank first; only then is a column cut further, down to its ``least``.
Widths are measured as a terminal draws the text (`cells`): a wide character (CJK, most
emoji) takes two columns, a combining mark none. The width
is the terminal's, or ``COLUMNS`` (honoured piped or not), else 80; ``None`` keeps every
column whole (``--wide``).

>>> print(fitted([Column("id"), Column("title", fit="cut", least=5)],
...              [["a1", "a long title that does not fit"]], width=16))
id  title
--  ------------
a1  a long titl…
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Literal, final

from .cells import ELLIPSIS, cell_width, cut_end

DEFAULT_WIDTH = 80
"""The width of a table printed where no terminal and no ``COLUMNS`` says one."""
GAP = 2
"""Spaces between two columns."""


@final
@dataclass(frozen=True, slots=True)
class Column:
    """A column: its ``header``; ``fit``: ``keep`` (never cut), ``cut`` (cut at the end:
    to ``ease`` before any column is dropped, to ``least`` after; the highest ``give``
    first) or ``id`` (a start of each id, to ``least`` at most); ``right`` aligned
    (counts); ``drop``: 0 never, else the rank at which it is left out when cutting to
    ``ease`` is not enough (the highest first)."""

    header: str
    fit: Literal["keep", "cut", "id"] = "keep"
    least: int = 0
    ease: int = 0
    give: int = 0
    right: bool = False
    drop: int = 0


def table_width() -> int:
    """The width tables fit: ``COLUMNS``, else the terminal's, else `DEFAULT_WIDTH`."""
    given = os.environ.get("COLUMNS", "")
    if given.isdigit() and int(given) > 0:
        return int(given)
    if sys.stdout.isatty():
        return shutil.get_terminal_size((DEFAULT_WIDTH, 24)).columns
    return DEFAULT_WIDTH


def fitted(columns: Sequence[Column], rows: Sequence[Sequence[str]], *, width: int | None) -> str:
    """The table's lines, fitted to ``width`` (``None``: every column whole)."""
    return plain(fitted_cells(columns, rows, width=width))


def plain(cells: Fitted) -> str:
    """A fitted table as plain text: its header, a rule of ``-``, its rows."""
    lines = [(" " * GAP).join(row).rstrip() for row in cells.rows]
    lines.insert(1, (" " * GAP).join("-" * size for size in cells.widths))
    return "\n".join(lines)


@final
@dataclass(frozen=True, slots=True)
class Fitted:
    """A fitted table's cells: ``rows`` (the header's first), each cell padded to its
    column's width, of the columns ``shown`` (their indexes) with their ``widths``."""

    shown: list[int]
    widths: list[int]
    rows: list[list[str]]


def fitted_cells(
    columns: Sequence[Column], rows: Sequence[Sequence[str]], *, width: int | None
) -> Fitted:
    """The cells of the table fitted to ``width`` (``None``: every column whole), padded."""
    shown, widths = _fit(columns, rows, width)
    padded = []
    for row in [[c.header for c in columns], *rows]:
        cells = []
        for n in shown:
            column, text = columns[n], row[n]
            text = cut_end(text, widths[n], mark="" if column.fit == "id" else ELLIPSIS)
            pad = " " * (widths[n] - cell_width(text))
            cells.append(pad + text if column.right else text + pad)
        padded.append(cells)
    return Fitted(shown, [widths[n] for n in shown], padded)


def _fit(
    columns: Sequence[Column], rows: Sequence[Sequence[str]], width: int | None
) -> tuple[list[int], list[int]]:
    """Which columns are shown (their indexes, in order), and each column's width."""
    natural = [max([cell_width(c.header), *(cell_width(row[n]) for row in rows)])
               for n, c in enumerate(columns)]  # fmt: skip
    shown = list(range(len(columns)))
    widths = list(natural)
    if width is None:
        return shown, widths
    while True:
        widths = _squeezed(columns, natural, shown, width, easy=True)
        if _used(widths, shown) <= width:
            return shown, widths
        droppable = [n for n in shown if columns[n].drop]
        if not droppable:
            # As narrow as reads well, with nothing left to drop: cut to the least.
            return shown, _squeezed(columns, natural, shown, width, easy=False)
        shown.remove(max(droppable, key=lambda n: (columns[n].drop, n)))


def _used(widths: Sequence[int], shown: Sequence[int]) -> int:
    return sum(widths[n] for n in shown) + GAP * (len(shown) - 1)


def _squeezed(
    columns: Sequence[Column], natural: Sequence[int], shown: Sequence[int], width: int,
    *, easy: bool,
) -> list[int]:  # fmt: skip
    """The widths with the ``cut`` columns narrowed as far as needed, the highest ``give``
    first, each down to its ``ease`` (``easy``) or its ``least`` (never below its header)
    before the next is touched; the ``id`` columns first, to their ``least`` (an id's short
    form names it as well as the whole id: the room goes to the text)."""
    widths = list(natural)
    over = _used(widths, shown) - width
    cut = sorted((n for n in shown if columns[n].fit != "keep"),
                 key=lambda n: (columns[n].fit != "id", -columns[n].give, n))  # fmt: skip
    for n in cut:
        if over <= 0:
            break
        bound = max(columns[n].ease, columns[n].least) if easy else columns[n].least
        if columns[n].fit == "id":
            bound = columns[n].least  # an id is never cut below its unique start
        floor = min(widths[n], max(bound, cell_width(columns[n].header)))
        narrowed = max(floor, widths[n] - over)
        over -= widths[n] - narrowed
        widths[n] = narrowed
    return widths
