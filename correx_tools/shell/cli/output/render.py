"""How the command shows what it found: tables and records as text or JSON."""

from __future__ import annotations

import argparse
import json
import re
import shutil
import sys
from collections import Counter
from collections.abc import Callable, Collection, Sequence
from datetime import datetime
from typing import TYPE_CHECKING

from ....core.lifecycle.status import ToolInvocationStatus
from ....core.replay.recorded import cut_note, edit_not_applied, exit_code_of
from ....core.tools.short_ids import short_invocation_id
from ..errors import CliError
from .readable import cut_middle
from .terminal import rich_table

if TYPE_CHECKING:
    from ....core.lifecycle.record import ToolInvocationRecord
    from ....core.lifecycle.state import ToolState
    from ....core.replay.timeline import RecordChange

NO_TIMES = (
    "the transcript records no time for its steps: none is shown (their order is the sequences')"
)
"""What a command about a session says when its transcript records no time."""

FLOOR = 10
"""The narrowest a squeezed column is cut to (its header permitting): both ends still show."""


def table(
    headers: Sequence[str], rows: Sequence[Sequence[object]], *, squeeze: Collection[str] = ()
) -> str:
    """A table: drawn with ``rich`` when standard output is a terminal, else plain text with
    columns padded to fit (stable for scripts).

    A whole number is a count: shown with thousands separators, its column
    right-aligned (give a sequence, which is typed back, as text). A cell is one
    line. On a terminal, where the table would be wider than it, the columns
    named in ``squeeze`` (ids, reasons) are cut in the middle with an ellipsis,
    the widest first, and nothing wraps; plain text keeps every cell whole, for
    ``grep``. ``--json`` has the full text too.
    """
    cells = [[_cell(cell) for cell in row] for row in rows]
    counts = [
        bool(rows) and all(_is_count(row[i]) or row[i] is None for row in rows)
        for i in range(len(headers))
    ]
    if not sys.stdout.isatty():
        return plain_table(headers, cells, right=counts)
    room = shutil.get_terminal_size((120, 24)).columns - 2 * (len(headers) - 1)
    widths = fit(headers, cells, [h in squeeze for h in headers], room)
    cells = [[cut_middle(cell, width) for cell, width in zip(row, widths, strict=True)]
             for row in cells]  # fmt: skip
    return rich_table(headers, cells, right=counts)


def _is_count(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


_ONE_LINE = str.maketrans(dict.fromkeys("\n\r\t\x0b\x0c", " "))

# Control characters (an escape sequence that clears the screen or retitles the
# terminal, a carriage return that hides what came before) and direction controls
# (U+202E reverses what follows) are shown as what they are, as the report shows them.
_CONTROLS = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


def visible(text: str, *, styled: bool = False) -> str:
    """``text`` with its control and direction characters written as ``[U+XXXX]`` (a
    newline and a tab stay): what a session holds cannot steer the terminal. ``styled``
    keeps the colour sequences a drawn table holds (``ESC [ ... m``), and only those: a
    colour cannot clear the screen, move the cursor or retitle the window."""
    pattern = _STYLED_CONTROLS if styled else _CONTROLS
    return pattern.sub(_shown, text)


_STYLED_CONTROLS = re.compile(f"(\x1b\\[[0-9;]*m)|{_CONTROLS.pattern}")


_BREAKS = re.compile("[\n\r\t\x0b\x0c]")


def one_line(name: str) -> str:
    """A name (a session's id, say) set in a line of text: its line breaks and tabs written
    as ``[U+XXXX]`` too, so that it cannot split the line it stands in."""
    return _BREAKS.sub(_shown, name)


def in_line(text: str) -> str:
    r"""``text`` said in one line on the terminal (a note naming a file, an error quoting what
    a transcript holds): every control, direction and line-breaking character written as
    ``[U+XXXX]``.

    >>> in_line("bad\x1b[31m.jsonl: line 2\nnot JSON")
    'bad[U+001B][31m.jsonl: line 2[U+000A]not JSON'
    """
    return visible(one_line(text))


def _shown(found: re.Match[str]) -> str:
    if found[1] if found.re is _STYLED_CONTROLS else None:
        return found[0]  # a colour of the drawn table
    return f"[U+{ord(found[0]):04X}]"


def _cell(value: object) -> str:
    if value is None:
        return "-"
    return f"{value:,}" if _is_count(value) else visible(str(value).translate(_ONE_LINE))


def fit(
    headers: Sequence[str], cells: Sequence[Sequence[str]], squeezed: Sequence[bool], room: int
) -> list[int]:
    """Each column's width: as wide as its widest cell, the squeezed ones narrowed, widest
    first, until the columns take ``room`` at most (none below its header or `FLOOR`)."""
    natural = [max([len(h), *(len(row[i]) for row in cells)]) for i, h in enumerate(headers)]
    floors = [min(w, max(len(h), FLOOR)) for w, h in zip(natural, headers, strict=True)]
    left = room - sum(w for w, s in zip(natural, squeezed, strict=True) if not s)

    def used(level: int) -> int:
        return sum(
            min(w, max(level, f))
            for w, f, s in zip(natural, floors, squeezed, strict=True)
            if s
        )  # fmt: skip

    low, high = 0, max(natural, default=0)
    while low < high:  # the widest level at which the squeezed columns fit
        middle = (low + high + 1) // 2
        low, high = (middle, high) if used(middle) <= left else (low, middle - 1)
    return [
        min(w, max(low, f)) if s else w
        for w, f, s in zip(natural, floors, squeezed, strict=True)
    ]  # fmt: skip


def plain_table(
    headers: Sequence[str], rows: Sequence[Sequence[str]], *, right: Sequence[bool] = ()
) -> str:
    """A plain text table, columns padded to fit (``right``: the columns aligned right)."""
    cells = [list(headers), *(list(row) for row in rows)]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    aligned = list(right) or [False] * len(headers)
    lines = [
        "  ".join(
            cell.rjust(width) if r else cell.ljust(width)
            for cell, width, r in zip(row, widths, aligned, strict=True)
        ).rstrip()
        for row in cells
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def _short_time(moment: datetime | None) -> str:
    return "-" if moment is None else moment.strftime("%H:%M:%S.%f")[:-3]


def _no_time(moment: datetime | None) -> str:
    return "-"


def record_detail(record: ToolInvocationRecord, *, notes: bool = False) -> str:
    """How the call ended, in a cell: its reason, or its exit code where one was recorded
    (none is made up: a call whose transcript states none shows none). With ``notes``, also
    an edit that did not take effect and what an import cut, in their own words."""
    if record.reason is not None:
        return record.reason
    receipt = record.receipt
    if receipt is None:
        return ""
    code = exit_code_of(receipt)
    said = [] if code is None else [f"exit {code}"]
    if notes:
        edit, cut = edit_not_applied(receipt), cut_note(receipt)
        said += [] if edit is None else [f"edit not applied: {edit}"]
        said += [] if cut is None else [f"cut to fit the store: {cut}"]
    return " · ".join(said)


def status_counts(state: ToolState) -> dict[str, int]:
    counts = Counter(record.status.value for record in state.records())
    return {status.value: counts.get(status.value, 0) for status in ToolInvocationStatus}


def records_table(
    records: Sequence[ToolInvocationRecord], session: str | None = None, *, times: bool = True
) -> str:
    """The records, one a row; in a session the text names, ids without its prefix.
    ``times`` false (the session records none): no time is shown."""
    ids = shown_ids(session, [r.invocation_id for r in records])
    when = _short_time if times else _no_time
    return table(
        ["invocation", "tool", "status", "requested", "completed", "detail"],
        [
            (
                ids[r.invocation_id],
                r.tool_name,
                r.status.name,
                when(r.requested_at),
                when(r.completed_at),
                record_detail(r),
            )
            for r in records
        ],
        squeeze=("invocation", "tool", "detail"),
    )


def changes_table(changes: Sequence[RecordChange], session: str | None = None) -> str:
    """The changes, one a row; in a session the text names, ids without its prefix."""
    ids = shown_ids(session, [c.invocation_id for c in changes])
    return table(
        ["invocation", "tool", "before", "after"],
        [
            (
                ids[c.invocation_id],
                c.after.tool_name,
                "(new)" if c.before is None else c.before.status.name,
                c.after.status.name,
            )
            for c in changes
        ],
        squeeze=("invocation", "tool"),
    )


def shown_ids(session: str | None, invocations: Sequence[str]) -> dict[str, str]:
    """Each id as a table shows it: without the session's prefix (`shown_id`), unless two
    ids of the table would then read alike (``run-1/call-1``, ``run-1:call-1``): those
    stay whole."""
    short = {invocation: shown_id(session, invocation) for invocation in invocations}
    seen = Counter(short.values())
    return {
        invocation: name if seen[name] == 1 else invocation for invocation, name in short.items()
    }


def shown_id(session: str | None, invocation: str) -> str:
    """An invocation's id in text that names its session already: without the session's own
    prefix (`short_invocation_id`), which the commands take back."""
    return invocation if session is None else short_invocation_id(session, invocation)


def emit(args: argparse.Namespace, document: object, text: Callable[[], str]) -> None:
    """Print the command's answer: its document with ``--json``, else its text. Standard
    output that cannot take it (a full device) is one line saying so."""
    said = json.dumps(document, ensure_ascii=False, sort_keys=False) if args.json else text()
    if not args.json:
        said = visible(said, styled=sys.stdout.isatty())
    try:
        print(said, flush=True)
    except BrokenPipeError:
        raise  # the reader stopped early: not an error (see main)
    except OSError as error:
        raise CliError(f"writing standard output: {error.strerror or error}") from None
