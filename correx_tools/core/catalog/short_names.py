"""The shortest names that tell a store's sessions apart, for a list to show.

A session's short name is the shortest start of its id that no other session's id begins
with, at least `LEAST` characters (its whole id when that is shorter), so any command takes
it for SESSION as it takes the whole id (`core.tools.short_ids`). One that begins another's
id whole (a subagent's ``<parent>/agent-…`` begins with its parent's id) is named by as much
as it takes to leave the parent behind.

>>> short_names(["4d5611e5-241a", "4d5611e5-999", "55604662-cf2a"])
{'4d5611e5-241a': '4d5611e5-2', '4d5611e5-999': '4d5611e5-9', '55604662-cf2a': '55604662'}
"""

from __future__ import annotations

from collections.abc import Iterable

LEAST = 8


def short_names(ids: Iterable[str]) -> dict[str, str]:
    """Each id's shortest unique start (at least `LEAST` characters)."""
    ordered = sorted(set(ids))
    return {
        this: short_name(
            this,
            ordered[n - 1] if n else None,
            ordered[n + 1] if n + 1 < len(ordered) else None,
        )
        for n, this in enumerate(ordered)
    }


def short_name(this: str, before: str | None, after: str | None) -> str:
    """The short name of ``this`` among ids of which ``before`` and ``after`` are the
    nearest in sorted order (``None``: none on that side): no other id shares more of its
    start than one of these two does.

    >>> short_name("4d5611e5-241a", None, "4d5611e5-999")
    '4d5611e5-2'
    """
    shared = max((_common(this, other) for other in (before, after) if other is not None),
                 default=0)  # fmt: skip
    return this[: max(LEAST, shared + 1)]


def _common(a: str, b: str) -> int:
    """How many characters ``a`` and ``b`` begin with alike."""
    length = min(len(a), len(b))
    for n in range(length):
        if a[n] != b[n]:
            return n
    return length
