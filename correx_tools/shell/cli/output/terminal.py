"""What the command draws on a terminal, through ``rich``: progress bars and tables.

On a terminal, long work shows a bar on stderr and tables are drawn with
colour (none when ``NO_COLOR`` is set, which ``rich`` honours). Anywhere else —
a pipe, a file, a script — nothing is drawn on stderr and tables are the plain
text of `render.table`, the same from one release to the next. ``rich`` is
imported only when something is drawn, so a script pays nothing for it.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from io import StringIO
from types import TracebackType
from typing import Any, TextIO, TypeVar

T = TypeVar("T")

PROGRESS_THRESHOLD = 5_000
"""Less work than this (events, calls) is done without a bar."""

_STATUS_STYLES = {
    "completed": "green",
    "failed": "red",
    "rejected": "yellow",
    "started": "blue",
    "requested": "dim",
}


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


def _styled(cell: str, escape: Any) -> str:
    """A cell as ``rich`` draws it: a status in its colour, and an exit code other than 0
    (``exit 1``, at the start of a cell) in the colour of a failure."""
    style = _STATUS_STYLES.get(cell.lower())
    if style is None and _nonzero_exit(cell):
        style = _STATUS_STYLES["failed"]
    return escape(cell) if style is None else f"[{style}]{escape(cell)}[/]"


def _nonzero_exit(cell: str) -> bool:
    """Whether a cell starts by saying an exit code other than 0 (``exit 1 · …``)."""
    if not cell.startswith("exit "):
        return False
    code = cell[5:].split(" ", 1)[0].removeprefix("-")
    return code.isascii() and code.isdigit() and int(code) != 0


def rich_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], *, right: Sequence[bool] = ()
) -> str:
    """A table drawn for a terminal (colour unless ``NO_COLOR``), as a string to print; no
    cell wraps (`render.table` has cut the long ones to fit)."""
    from rich import box  # noqa: PLC0415
    from rich.console import Console  # noqa: PLC0415
    from rich.markup import escape  # noqa: PLC0415
    from rich.table import Table  # noqa: PLC0415

    # Two spaces between columns and none at the edges, as in plain text (`render.table`
    # fits the columns to the terminal on that count).
    drawn = Table(
        box=box.SIMPLE_HEAD,
        header_style="bold",
        pad_edge=False,
        show_edge=False,
        collapse_padding=True,
    )
    aligned = list(right) or [False] * len(headers)
    for header, r in zip(headers, aligned, strict=True):
        drawn.add_column(header, justify="right" if r else "left", no_wrap=True)
    for cells in rows:
        drawn.add_row(*(_styled(c, escape) for c in cells))
    buffer = StringIO()
    width = shutil.get_terminal_size((120, 24)).columns
    Console(file=buffer, force_terminal=True, width=width, no_color="NO_COLOR" in os.environ).print(
        drawn
    )
    return buffer.getvalue().rstrip("\n")
