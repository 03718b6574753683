"""An invocation's entry read back from its row, its seal checked.

The stores' entry query (`entry_query`) joins each invocation's row (`images`)
with its Requested event (whose JSON holds the request's arguments) and, when
it completed, its Completed event (the receipt's output and metadata). A row
is used only when it holds together: its seal matches its columns and those
two events (their chain values, and the CRC-32s of their JSON that the row
keeps; in a layout-3 store, the CRC-32s of the JSON as read), its request is
that invocation's Requested event, its sequences and status agree, and the
JSON the entry hands on has the CRC-32 the row keeps. Anything else is a
`StaleIndex`: the question is answered from the events instead. A row read
for its outline alone (`outline_of_row`: no request, no receipt), where rows
keep their events' chains and CRCs, is read and checked alone, without its
events (`page_query`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from ....core.lifecycle.events import ToolReceipt, lazy_receipt
from ....core.lifecycle.status import ToolInvocationStatus
from ....core.replay.outline import InvocationOutline
from ....core.replay.stored_index import TIER_OF_CODE, InvocationEntry
from ....core.tools.request import lazy_request
from ..codec.columns import KIND_COMPLETED, KIND_FAILED, KIND_REJECTED, KIND_REQUESTED
from ..port import StaleIndex
from .images import Proof, keeps_crcs, payload_crc, seal_of_row

_ENTRY_QUERY = """
SELECT i.invocation_id, i.sequence, i.requested_at, i.tool_name, i.tier, r.data, r.kind,
       r.invocation_id, i.started_seq, i.started_at, i.ended_seq, i.completed_at, i.status,
       i.end_label, i.end_code, e.data, e.kind, e.invocation_id, i.seal, r.chain, e.chain,
       {crcs}
FROM (
    SELECT * FROM {{{{invocations}}}} i
    WHERE {{session_test}} = ? AND {{where}}
    ORDER BY i.sequence {{order}} {{limit}}
) i
JOIN {{{{events}}}} r ON r.{{{{session}}}} = i.{{{{session}}}} AND r.sequence = i.sequence
LEFT JOIN {{{{events}}}} e
    ON i.status = 3 AND e.{{{{session}}}} = i.{{{{session}}}} AND e.sequence = i.ended_seq
ORDER BY i.sequence {{order}}
"""

_PAGE_QUERY = """
SELECT i.invocation_id, i.sequence, i.requested_at, i.tool_name, i.tier, {r_data}, r.kind,
       r.invocation_id, i.started_seq, i.started_at, i.ended_seq, i.completed_at, i.status,
       i.end_label, i.end_code, {e_data}, e.kind, e.invocation_id, i.seal, r.chain, e.chain,
       {crcs}
FROM {{invocations}} i
JOIN {{events}} r ON r.{{session}} = i.{{session}} AND r.sequence = i.sequence
LEFT JOIN {{events}} e ON i.status = 3 AND e.{{session}} = i.{{session}}
    AND e.sequence = i.ended_seq
WHERE i.{{session}} = ? AND i.sequence > ? AND i.sequence <= ?
ORDER BY i.sequence LIMIT ?
"""


def _crcs(proof: Proof) -> str:
    # A layout-3 row keeps no CRCs: they are made from the JSON read beside it.
    return "i.request_crc, i.end_crc" if keeps_crcs(proof) else "NULL, NULL"


@functools.cache
def entry_query(proof: Proof) -> str:
    """The entries of some invocations of a session, in a store whose rows are sealed by
    ``proof`` (``session_test``, ``where``, ``order`` and ``limit`` to fill in; then the
    database's spelling). The invocations are chosen (and limited) before the joins:
    joined first, a planner may merge the whole session's events to keep the last twenty
    calls before a point."""
    return _ENTRY_QUERY.format(crcs=_crcs(proof))


@functools.cache
def page_query(proof: Proof, *, payloads: bool) -> str:
    """The entry query's columns for the next page of a session in request order (its key,
    the sequence after which and through which, and how many): walking the invocations'
    index forward, each joined as it comes, stops at the page's end (`entry_query`'s
    subquery, which the walks back need, costs a copy and a sort of every page). Without
    ``payloads``, where the rows keep their CRCs and chains, the rows alone (for outlines:
    a database reads a row's later columns only past its JSON, so joining the events for
    their chains would read the payloads after all)."""
    if joins_events(proof, payloads=payloads):
        return _PAGE_QUERY.format(r_data="r.data", e_data="e.data", crcs=_crcs(proof))
    return _ROWS_PAGE_QUERY


def joins_events(proof: Proof, *, payloads: bool) -> bool:
    """Whether a row is read with its two events: where its payloads are handed on, or
    where it does not keep its events' CRCs and chains (`page_query`)."""
    return payloads or not keeps_crcs(proof)


_ROWS_PAGE_QUERY = """
SELECT i.invocation_id, i.sequence, i.requested_at, i.tool_name, i.tier, NULL, NULL, NULL,
       i.started_seq, i.started_at, i.ended_seq, i.completed_at, i.status, i.end_label,
       i.end_code, NULL, NULL, NULL, i.seal, i.request_chain, i.end_chain, i.request_crc,
       i.end_crc
FROM {invocations} i
WHERE i.{session} = ? AND i.sequence > ? AND i.sequence <= ?
ORDER BY i.sequence LIMIT ?
"""


# The 23 columns `entry_of` and `outline_of_row` read (see `entry_query`): the
# invocation's id, request sequence, request time, tool and tier; its Requested event's data,
# kind and id; its start's sequence and time; its end's sequence and time; its status; the
# end's label and code; the data, kind and id of its Completed event, if it completed; the
# row's seal; the chain values of the Requested and the Completed event; and the CRC-32s the
# row keeps of their JSON.

TEXT_COLUMNS = (0, 3, 7, 13, 17)
"""The entry query's ids and labels (kept as bytes where a database cannot keep NULs)."""

_ENDINGS = {
    KIND_COMPLETED: ToolInvocationStatus.COMPLETED,
    KIND_FAILED: ToolInvocationStatus.FAILED,
    KIND_REJECTED: ToolInvocationStatus.REJECTED,
}
_new_entry = tuple.__new__
_OPEN_CODES = frozenset({1, 2})
_AFTER_ALL = 1 << 62
_ARGUMENTS = ("request", "arguments")
_OPEN = {False: ToolInvocationStatus.REQUESTED, True: ToolInvocationStatus.STARTED}


Times = tuple[datetime, datetime | None, datetime | None]
"""An invocation's request, start and end times, as UTC ``datetime`` values."""


def held_times(
    session_id: str,
    row: Sequence[Any],
    when: Callable[[Any], datetime],
    proof: Proof,
    *,
    payloads: bool,
) -> Times:
    """The times of a row of the entry query, once it is found to hold together (see the
    module's docstring); `StaleIndex` if it does not.

    ``when`` turns a stored timestamp into a UTC ``datetime``; ``proof`` is how the store's
    rows are sealed over their events (`images.proof_for` its layout); ``payloads``, whether
    the two events' JSON, read, is handed on (and so held to the CRCs the row keeps). A
    row read without its events (`joins_events`) has the chains it keeps in place of
    theirs, and no events' kinds and ids to compare.
    """
    (invocation, requested_seq, requested_text, tool_name, tier, r_data, r_kind, r_id,
     started_seq, started_text, ended_seq, completed_text, status, e_label, e_code,
     e_data, e_kind, e_id, seal, r_chain, e_chain, r_crc, e_crc) = row  # fmt: skip
    completed = status == KIND_COMPLETED
    joined = joins_events(proof, payloads=payloads)
    if not keeps_crcs(proof):  # (the Completed event is joined only to a completed call)
        r_crc, e_crc = payload_crc(r_data), payload_crc(e_data)
    elif payloads and (
        payload_crc(r_data) != r_crc or (completed and payload_crc(e_data) != e_crc)
    ):
        raise StaleIndex(f"an event of invocation {invocation!r} does not match its index row")
    requested_at = when(requested_text)
    started_at = None if started_text is None else when(started_text)
    completed_at = None if completed_text is None else when(completed_text)
    sealed = (
        invocation, requested_seq, status, requested_at, started_seq, started_at, ended_seq,
        completed_at, tool_name, tier, e_label, e_code, proof(r_crc, r_chain),
        proof(e_crc, e_chain),
    )  # fmt: skip
    if (
        (joined and (r_kind != KIND_REQUESTED or r_id != invocation))
        or (ended_seq is None) != (status in _OPEN_CODES)
        or (started_seq is None) != (started_at is None)
        or not requested_seq < (started_seq or requested_seq + 1) <= (ended_seq or _AFTER_ALL)
        or (ended_seq is not None and ended_seq <= requested_seq)
        or (joined and completed and (e_kind != KIND_COMPLETED or e_id != invocation))
        or seal != seal_of_row(session_id, sealed)
    ):
        raise StaleIndex(f"the index row of invocation {invocation!r} does not match its events")
    return requested_at, started_at, completed_at


def entry_of(
    session_id: str, row: Sequence[Any], when: Callable[[Any], datetime], proof: Proof
) -> InvocationEntry:
    """An invocation's entry from a row of the entry query (`held_times` says how it is
    checked)."""
    requested_at, started_at, completed_at = held_times(session_id, row, when, proof, payloads=True)
    (invocation, requested_seq, _, tool_name, tier, r_data, _, _, started_seq, _, ended_seq,
     _, status, e_label, e_code, e_data, *_) = row  # fmt: skip
    receipt: ToolReceipt | None = None
    reason: str | None = None
    recoverable: bool | None = None
    if ended_seq is not None:
        if status == KIND_COMPLETED:
            receipt = lazy_receipt(e_code, e_data)
        else:
            reason = e_label
            recoverable = (e_code == 1) if status == KIND_FAILED else None
    entry: InvocationEntry = _new_entry(
        InvocationEntry,
        (
            invocation,
            tool_name,
            TIER_OF_CODE[tier],
            lazy_request(tool_name, r_data, _ARGUMENTS),
            requested_seq,
            requested_at,
            started_seq,
            started_at,
            ended_seq,
            completed_at,
            _final(status, started_seq, ended_seq),
            receipt,
            reason,
            recoverable,
        ),
    )
    return entry


def outline_of_row(
    session_id: str, row: Sequence[Any], when: Callable[[Any], datetime], proof: Proof
) -> InvocationOutline:
    """An invocation's outline from a row of the entry query (checked as `entry_of` checks
    it; the payloads, unused, may be NULL where the rows keep their CRCs)."""
    requested_at, started_at, completed_at = held_times(
        session_id, row, when, proof, payloads=False
    )
    (invocation, requested_seq, _, tool_name, tier, _, _, _, started_seq, _, ended_seq, _,
     status, e_label, e_code, *_) = row  # fmt: skip
    ended, completed = ended_seq is not None, status == KIND_COMPLETED
    return InvocationOutline(
        invocation, tool_name, TIER_OF_CODE[tier], requested_seq, requested_at, started_seq,
        started_at, ended_seq, completed_at, _final(status, started_seq, ended_seq),
        e_label if ended and not completed else None, e_code if ended and completed else None,
    )  # fmt: skip


def _final(status: int, started_seq: int | None, ended_seq: int | None) -> ToolInvocationStatus:
    """An invocation's status from its row's code and sequences."""
    return _OPEN[started_seq is not None] if ended_seq is None else _ENDINGS[status]
