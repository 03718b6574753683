"""A command's table as the person reading it gets it: one table per answer, fitted to the
width the terminal gives (`fitted`), drawn with colour on a terminal (`terminal.drawn`)
and as plain text anywhere else.

Every command with a table takes ``--wide`` (every column whole, whatever the width) and
``--json`` (every field, whole). A cell is one line: what it holds is made visible
(`render.visible`), a line break or a tab written as a space, a count with thousands
separators, and what is not known as ``-``.

>>> print(table([Column("tool"), Column("calls", right=True)], [["Read", 1200]], wide=True))
tool  calls
----  -----
Read  1,200
"""

from __future__ import annotations

import sys
from collections.abc import Sequence

from .fitted import GAP, Column, fitted_cells, plain, table_width
from .render import visible

__all__ = ["Column", "cell", "table"]

_ONE_LINE = str.maketrans(dict.fromkeys("\n\r\t\x0b\x0c", " "))


def cell(value: object) -> str:
    """A value as a cell shows it: ``-`` for nothing, a whole number with thousands
    separators, text on one line with its control characters made visible."""
    if value is None:
        return "-"
    if isinstance(value, int) and not isinstance(value, bool):
        return f"{value:,}"
    return visible(str(value).translate(_ONE_LINE))


def table(columns: Sequence[Column], rows: Sequence[Sequence[object]], *, wide: bool) -> str:
    """The table of ``rows`` (values, made cells by `cell`) under ``columns``: fitted to the
    width (`table_width`) unless ``wide``; drawn in colour when standard output is a
    terminal."""
    cells = [[cell(value) for value in row] for row in rows]
    fitted = fitted_cells(columns, cells, width=None if wide else table_width())
    if sys.stdout.isatty():
        from .terminal import drawn  # noqa: PLC0415 - rich, only on a terminal

        return drawn(fitted, gap=GAP)
    return plain(fitted)
