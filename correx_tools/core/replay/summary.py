"""A session at a glance: how far it goes, its invocations by status, what is in flight; and
what changed between two of its points, counted."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import final

from pyrsistent import PMap, pmap

from ..lifecycle.record import ToolInvocationRecord
from ..lifecycle.state import ToolState
from ..lifecycle.status import ToolInvocationStatus
from ..tools.ids import InvocationId, SessionId
from .recorded import receipt_exited_nonzero
from .timeline import RecordChange


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class SessionSummary:
    """One session right after event ``sequence`` (its last, unless asked about an earlier one).

    ``counts`` has every status, zero included; ``refused`` counts the events the
    lifecycle refused by then (skipped in lenient mode); ``in_flight`` lists the
    invocations requested or started and not ended, in request order;
    ``exited_nonzero`` counts the completed ones whose exit code is not 0 (they are
    among ``counts``' completed: a non-zero exit is not a status, see `recorded`).
    """

    session_id: SessionId
    sequence: int
    invocations: int
    counts: PMap[ToolInvocationStatus, int]
    refused: int
    in_flight: tuple[InvocationId, ...]
    exited_nonzero: int


def status_counts(records: Iterable[ToolInvocationRecord]) -> PMap[ToolInvocationStatus, int]:
    """How many of ``records`` are in each status (every status present, zero included).

    >>> status_counts([])[ToolInvocationStatus.FAILED]
    0
    """
    counts = dict.fromkeys(ToolInvocationStatus, 0)
    for record in records:
        counts[record.status] += 1
    return pmap(counts)


def summarize(
    session_id: SessionId, sequence: int, state: ToolState, refused: int
) -> SessionSummary:
    """The summary of a folded state (what a store's index answers without folding)."""
    records = list(state.records())
    return SessionSummary(
        session_id=session_id,
        sequence=sequence,
        invocations=len(records),
        counts=status_counts(records),
        refused=refused,
        in_flight=tuple(r.invocation_id for r in records if not r.status.is_terminal),
        exited_nonzero=sum(
            1
            for r in records
            if r.status is ToolInvocationStatus.COMPLETED and receipt_exited_nonzero(r.receipt)
        ),
    )


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class DiffSummary:
    """What changed in a session from right after ``a`` to right after ``b``, counted.

    ``added`` invocations were requested in between, ``changed`` ones were
    requested by ``a`` and started or ended in between; ``counts`` has the
    status each of them has at ``b`` (every status, zero included), and
    ``tools`` how many of them each tool has, added and changed. Nothing that
    stayed as it was is counted.
    """

    a: int
    b: int
    added: int
    changed: int
    counts: PMap[ToolInvocationStatus, int]
    tools: PMap[str, tuple[int, int]]

    @property
    def total(self) -> int:
        """The invocations added or changed."""
        return self.added + self.changed

    @property
    def finished(self) -> int:
        """The invocations that ended in between (each was added or changed)."""
        return sum(n for status, n in self.counts.items() if status.is_terminal)

    @classmethod
    def of(
        cls, a: int, b: int, groups: Iterable[tuple[str, bool, ToolInvocationStatus, int]]
    ) -> DiffSummary:
        """Counted from ``(tool, added, status at b, how many)`` groups.

        >>> s = DiffSummary.of(0, 9, [("read", True, ToolInvocationStatus.FAILED, 2)])
        >>> s.added, s.changed, s.finished, dict(s.tools)
        (2, 0, 2, {'read': (2, 0)})
        """
        counts = dict.fromkeys(ToolInvocationStatus, 0)
        tools: dict[str, tuple[int, int]] = {}
        added = changed = 0
        for tool, new, status, count in groups:
            counts[status] += count
            before = tools.get(tool, (0, 0))
            tools[tool] = (before[0] + count, before[1]) if new else (before[0], before[1] + count)
            added, changed = (added + count, changed) if new else (added, changed + count)
        return cls(a=a, b=b, added=added, changed=changed, counts=pmap(counts), tools=pmap(tools))


def summarize_changes(a: int, b: int, changes: Iterable[RecordChange]) -> DiffSummary:
    """The summary of the changes a fold's ``Timeline.diff(a, b)`` gives."""
    return DiffSummary.of(
        a, b, ((c.after.tool_name, c.before is None, c.after.status, 1) for c in changes)
    )
