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

from collections.abc import Callable, Iterable, Mapping

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


SHORTENED = 12
"""Ids no longer than this are shown whole: no shorter start is worth looking up."""


def short_invocations(
    resolve: Callable[[str], str | None], shown: Mapping[str, str]
) -> dict[str, str]:
    """For each invocation (``shown``: its id, and the form a table shows it in), the
    shortest start of that form (at least `LEAST` characters) that ``resolve`` (the
    session's own rule for a name: `SessionView.resolve`) takes for it; the form itself
    where no shorter start names it. A longer start of the same form names it too: the
    ids that begin with a start are among those that begin with a shorter one."""
    named: dict[str, str] = {}
    for invocation, form in shown.items():
        if len(form) <= SHORTENED or resolve(form) != invocation:
            named[invocation] = form
            continue
        low, high = min(LEAST, len(form)), len(form)  # `high` names it
        while low < high:
            middle = (low + high) // 2
            if resolve(form[:middle]) == invocation:
                high = middle
            else:
                low = middle + 1
        named[invocation] = form[:high]
    return named
