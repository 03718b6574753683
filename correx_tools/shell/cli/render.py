"""How the command shows what it found: tables and records as text or JSON."""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from collections.abc import Callable, Sequence
from datetime import datetime

from ...core.lifecycle.record import ToolInvocationRecord
from ...core.lifecycle.state import ToolState
from ...core.lifecycle.status import ToolInvocationStatus
from ...core.replay.timeline import RecordChange
from .terminal import rich_table


def table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A table: drawn with ``rich`` when standard output is a terminal, else plain text with
    columns padded to fit (stable for scripts)."""
    if sys.stdout.isatty():
        return rich_table(headers, rows)
    return plain_table(headers, rows)


def plain_table(headers: Sequence[str], rows: Sequence[Sequence[object]]) -> str:
    """A plain text table, columns padded to fit."""
    cells = [[str(h) for h in headers]] + [
        ["-" if c is None else str(c) for c in row] for row in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [
        "  ".join(cell.ljust(width) for cell, width in zip(row, widths, strict=True)).rstrip()
        for row in cells
    ]
    lines.insert(1, "  ".join("-" * width for width in widths))
    return "\n".join(lines)


def _short_time(moment: datetime | None) -> str:
    return "-" if moment is None else moment.strftime("%H:%M:%S.%f")[:-3]


def record_detail(record: ToolInvocationRecord) -> str:
    if record.reason is not None:
        return record.reason
    if record.receipt is not None:
        return f"exit {record.receipt.exit_code}"
    return ""


def status_counts(state: ToolState) -> dict[str, int]:
    counts = Counter(record.status.value for record in state.records())
    return {status.value: counts.get(status.value, 0) for status in ToolInvocationStatus}


def records_table(records: Sequence[ToolInvocationRecord]) -> str:
    return table(
        ["invocation", "tool", "status", "requested", "completed", "detail"],
        [
            (
                r.invocation_id,
                r.tool_name,
                r.status.name,
                _short_time(r.requested_at),
                _short_time(r.completed_at),
                record_detail(r),
            )
            for r in records
        ],
    )


def changes_table(changes: Sequence[RecordChange]) -> str:
    return table(
        ["invocation", "tool", "before", "after"],
        [
            (
                c.invocation_id,
                c.after.tool_name,
                "(new)" if c.before is None else c.before.status.name,
                c.after.status.name,
            )
            for c in changes
        ],
    )


def emit(args: argparse.Namespace, document: object, text: Callable[[], str]) -> None:
    if args.json:
        print(json.dumps(document, ensure_ascii=False, sort_keys=False))
    else:
        print(text())
