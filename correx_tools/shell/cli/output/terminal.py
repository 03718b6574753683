"""What the command draws on a terminal, through ``rich``: progress bars and tables.

On a terminal, long work shows a bar on stderr and tables are drawn with
colour (none when ``NO_COLOR`` is set, which ``rich`` honours). Anywhere else —
a pipe, a file, a script — nothing is drawn on stderr and tables are the plain
text of `tables.table`, the same from one release to the next. ``rich`` is
imported only when something is drawn, so a script pays nothing for it.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from contextlib import contextmanager
from io import StringIO
from types import TracebackType
from typing import Any, TextIO, TypeVar

from .fitted import Fitted

T = TypeVar("T")

PROGRESS_THRESHOLD = 5_000
"""Less work than this (events, calls) is done without a bar."""

_STATUS_STYLES = {
    "completed": "green",
    "failed": "red",
    "rejected": "yellow",
    "started": "blue",
    "requested": "dim",
    "error": "red",
    "warning": "yellow",
}
"""The colour of a cell that says a status, or an audit finding's level."""


class Progress:
    """A bar on ``stream`` for work of ``total`` steps (``None``: not known), drawn only
    on a terminal and for more than `PROGRESS_THRESHOLD` steps.

    Use it as a context manager, or `wrap` an iterator: the bar ends on its own
    line when the work ends *or stops early*, so nothing is printed onto it.
    """

    def __init__(self, label: str, total: int | None, stream: TextIO) -> None:
        self.label, self.total, self.stream = label, total, stream
        self._bar: Any = None
        self._task: Any = None
        self._done = 0

    def _wanted(self, total: int | None) -> bool:
        return self.stream.isatty() and (total is None or total > PROGRESS_THRESHOLD)

    def _start(self) -> None:
        if self._bar is not None or not self._wanted(self.total):
            return
        from rich.console import Console  # noqa: PLC0415 - only a terminal pays for rich
        from rich.progress import (  # noqa: PLC0415
            BarColumn,
            MofNCompleteColumn,
            TextColumn,
            TimeElapsedColumn,
        )
        from rich.progress import Progress as Bar  # noqa: PLC0415

        self._bar = Bar(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeElapsedColumn(),
            console=Console(file=self.stream),
        )
        self._bar.start()
        self._task = self._bar.add_task(self.label, total=self.total)

    def __enter__(self) -> Progress:
        if self.total is not None:  # otherwise the first update says whether it is long
            self._start()
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()

    def advance(self, steps: int = 1) -> None:
        """``steps`` more done."""
        self._done += steps
        if self._bar is not None:
            # A fold may read one event past where it stops: the bar never overshoots.
            shown = self._done if self.total is None else min(self._done, self.total)
            self._bar.update(self._task, completed=shown)

    def update(self, done: int, total: int) -> None:
        """``done`` of ``total`` (a callback for work that reports its own progress)."""
        self.total, self._done = total, done
        self._start()
        if self._bar is not None:
            self._bar.update(self._task, completed=done, total=total)
            if done >= total:
                self.close()

    def wrap(self, items: Iterator[T], every: int = 2_000, *, close: bool = True) -> Iterator[T]:
        """``items``, advancing the bar every ``every`` of them; closed (unless ``close`` is
        false: more is to come) when they end or when the reader stops."""
        self._start()
        count = 0
        try:
            for count, item in enumerate(items, start=1):
                if count % every == 0:
                    self.advance(every)
                yield item
        finally:
            self.advance(count % every)
            if close:
                self.close()

    def close(self) -> None:
        """Leave the bar as it is, on its own line."""
        if self._bar is not None:
            self._bar.stop()
            self._bar = None


@contextmanager
def status(label: str, stream: TextIO) -> Iterator[None]:
    """A spinner with ``label`` on a terminal while one long step runs; nothing elsewhere."""
    if not stream.isatty():
        yield
        return
    from rich.console import Console  # noqa: PLC0415

    with Console(file=stream).status(label):
        yield


def drawn(cells: Fitted, *, gap: int) -> str:
    """A fitted table drawn for a terminal, as a string to print: its header bold, a rule
    under it, a status in its colour and an exit code other than 0 (``exit 1``, at the
    start of a cell) in the colour of a failure (no colour when ``NO_COLOR`` is set). The
    cells are `fitted`'s, padded as it padded them: the colour changes no width."""
    from rich.console import Console  # noqa: PLC0415 - only a terminal pays for rich
    from rich.text import Text  # noqa: PLC0415

    between = " " * gap
    header, *rows = cells.rows
    lines = [Text(between.join(header).rstrip(), style="bold"),
             Text(between.join("─" * size for size in cells.widths), style="dim")]  # fmt: skip
    for row in rows:
        line = Text()
        for n, cell in enumerate(row):
            line.append(between if n else "")
            line.append(cell, style=_style(cell.strip()) or "")
        line.rstrip()
        lines.append(line)
    buffer = StringIO()
    console = Console(
        file=buffer, force_terminal=True, width=10**6, no_color="NO_COLOR" in os.environ,
        soft_wrap=True,
    )  # fmt: skip
    for line in lines:
        console.print(line, no_wrap=True, crop=False)
    return buffer.getvalue().rstrip("\n")


def _style(cell: str) -> str | None:
    """The colour of a cell: a status's, a level's, or a failure's for a non-zero exit."""
    style = _STATUS_STYLES.get(cell.lower())
    if style is None and _nonzero_exit(cell):
        style = _STATUS_STYLES["failed"]
    return style


def _nonzero_exit(cell: str) -> bool:
    """Whether a cell starts by saying an exit code other than 0 (``exit 1 · …``)."""
    if not cell.startswith("exit "):
        return False
    code = cell[5:].split(" ", 1)[0].removeprefix("-")
    return code.isascii() and code.isdigit() and int(code) != 0
