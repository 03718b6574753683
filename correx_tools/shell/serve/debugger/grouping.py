"""The page's list grouped by project: the order of ``sort=project``."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, TypeVar

T = TypeVar("T")


def grouped(items: Sequence[T], rows: Sequence[dict[str, Any]], *, oldest_first: bool) -> list[T]:
    """``items`` (whose rows are ``rows``) grouped by project, the sessions without one last:
    the group whose latest session is most recent first, and each group's most recent
    session first (``oldest_first``: the oldest first, throughout)."""
    latest: dict[str, str] = {}
    for row in rows:
        project = row["project"] or ""
        latest[project] = max(latest.get(project, ""), row["last_time"] or "")

    def order(n: int) -> tuple[bool, str, str, str]:
        project = rows[n]["project"] or ""
        return (bool(project), latest[project], project, rows[n]["last_time"] or "")

    numbers = sorted(range(len(items)), key=order, reverse=True)
    if oldest_first:
        numbers = sorted(range(len(items)), key=lambda n: (not order(n)[0], *order(n)[1:]))
    return [items[n] for n in numbers]
