"""A session at a glance: how far it goes, its invocations by status, what is in flight."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import final

from pyrsistent import PMap, pmap

from ..lifecycle.record import ToolInvocationRecord
from ..lifecycle.state import ToolState
from ..lifecycle.status import ToolInvocationStatus
from ..tools.ids import InvocationId, SessionId


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class SessionSummary:
    """One session right after event ``sequence`` (its last, unless asked about an earlier one).

    ``counts`` has every status, zero included; ``refused`` counts the events the
    lifecycle refused by then (skipped in lenient mode); ``in_flight`` lists the
    invocations requested or started and not ended, in request order.
    """

    session_id: SessionId
    sequence: int
    invocations: int
    counts: PMap[ToolInvocationStatus, int]
    refused: int
    in_flight: tuple[InvocationId, ...]


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
    )
