"""What changed between two sequences: the calls a diff or the scrubber's panel lists, in order.

Counted from the columns, at any range in the time of a lookup: the calls open at the first
sequence (`open_at`) that started or ended by the second, then those requested in between.
"""

from __future__ import annotations

from .columns import SessionColumns
from .stats_at import open_at


def changed(columns: SessionColumns, a: int, b: int) -> list[int]:
    """The positions of the invocations added or changed from right after ``a`` to ``b``, in
    request order: those open at ``a`` that started or ended by ``b``, then those requested
    in between (the order of the command's ``diff``, which the scrubber's panel keeps)."""
    return _moved(columns, a, b) + list(range(columns.requested_by(a), columns.requested_by(b)))


def changed_count(columns: SessionColumns, a: int, b: int) -> int:
    """How many invocations `changed` lists, without listing them."""
    return len(_moved(columns, a, b)) + columns.requested_by(b) - columns.requested_by(a)


def _moved(columns: SessionColumns, a: int, b: int) -> list[int]:
    return [
        p
        for p in open_at(columns, a)
        if a < columns.start[p] <= b or a < columns.end[p] <= b
    ]  # fmt: skip
