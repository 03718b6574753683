"""What changed between two points of a session, from its index: a page of it, or counted.

The invocations changed in ``(a, b]`` are, in request order, those open at
``a`` that started or ended by ``b`` (few: walked back from ``a``, their
number known from the counters), then those requested in between. A page
reads only the rows it shows; the counts are one aggregate over the rows
requested in between. Both are held to the session's counters, which its
chain and seals vouch for: rows missing, or saying another status than the
events did, are a `StaleIndex`, and the question is answered by folding.
"""

from __future__ import annotations

from collections import Counter

from ...core.lifecycle.status import ToolInvocationStatus
from ...core.replay.stored_index import STATUS_CODES, InvocationEntry, changed_between, record_at
from ...core.replay.summary import DiffSummary
from ...core.replay.timeline import RecordChange
from ..stores.port import SessionIndex, StaleIndex


def _open_at(index: SessionIndex, a: int, b: int) -> tuple[list[InvocationEntry], ...]:
    """The entries open right after ``a``: those changed by ``b``, and the others."""
    counts = index.counts_at(a)
    changed: list[InvocationEntry] = []
    unchanged: list[InvocationEntry] = []
    for entry in index.open_entries(a, counts[0] + counts[1]):
        (changed if changed_between(entry, a, b) else unchanged).append(entry)
    return changed, unchanged


def _requested(index: SessionIndex, a: int, b: int) -> int:
    """How many invocations were requested in ``(a, b]``, by the counters."""
    return sum(index.counts_at(b)[:5]) - sum(index.counts_at(a)[:5])


def changes_between(
    index: SessionIndex, a: int, b: int, limit: int | None, offset: int = 0
) -> tuple[RecordChange, ...]:
    """The records changed in ``(a, b]``, before and after: ``limit`` of them (all, for
    ``None``) from the ``offset``-th on. The command's ``diff`` and the server's pages are
    this one list."""
    opened = _open_at(index, a, b)[0]
    entries = opened[offset:] if limit is None else opened[offset : offset + limit]
    skip = max(0, offset - len(opened))  # of those requested in between
    more = None if limit is None else limit - len(entries)
    if more != 0:
        if more is None:
            added = index.entries(through=b, after=a)[skip:]
        else:
            added = index.entries(through=b, after=a, first=more, skip=skip)
        # The last few are counted against the requests between them and a; all of them
        # against the counters.
        if more is not None and len(added) == more:
            expected = index.requests_between(a, added[-1].requested_seq) - skip
        else:
            expected = max(0, _requested(index, a, b) - skip)
        if len(added) != expected:
            raise StaleIndex(f"{expected} invocations were requested there, the index has "
                             f"rows for {len(added)}")  # fmt: skip
        entries += added
    found = []
    for entry in entries:
        after = record_at(entry, b)
        assert after is not None  # the entry changed by b, so it was requested by then
        found.append(
            RecordChange(invocation_id=entry.invocation_id, before=record_at(entry, a), after=after)
        )
    return tuple(found)


def count_changes(index: SessionIndex, a: int, b: int) -> DiffSummary:
    """The records changed in ``(a, b]``, counted by their status at ``b`` and by tool."""
    changed, unchanged = _open_at(index, a, b)
    groups = [(tool, True, status, n) for tool, status, n in index.added_counts(a, b)]
    groups += [(entry.tool_name, False, status_at(entry, b), 1) for entry in changed]
    summary = DiffSummary.of(a, b, groups)
    # Each status at b is what the counters say there, less what had it at a already: an
    # ended invocation, or one open at a that stayed as it was.
    before, after_b = index.counts_at(a), index.counts_at(b)
    stayed = Counter(status_at(entry, b) for entry in unchanged)
    for status, code in STATUS_CODES.items():
        had = before[code - 1] if status.is_terminal else stayed[status]
        if summary.counts[status] != after_b[code - 1] - had:
            raise StaleIndex(f"the invocation rows count {summary.counts[status]} {status.value} "
                             f"from {a} to {b}, the events {after_b[code - 1] - had}")  # fmt: skip
    if summary.added != sum(after_b[:5]) - sum(before[:5]):
        raise StaleIndex(f"the invocation rows count {summary.added} requested from {a} to {b}")
    return summary


def status_at(entry: InvocationEntry, sequence: int) -> ToolInvocationStatus:
    """The status of an invocation requested by ``sequence``, right after it."""
    record = record_at(entry, sequence)
    assert record is not None  # requested by then
    return record.status
