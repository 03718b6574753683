"""An invocation's entry read back from its row, its seal checked.

The stores' entry query (`reading`) joins each invocation's row (`images`)
with its Requested event (whose JSON holds the request's arguments) and, when
it completed, its Completed event (the receipt's output and metadata). A row
is used only when it holds together: its seal matches its columns and those
two payloads, its request is that invocation's Requested event, and its
sequences and status agree. Anything else is a `StaleIndex`: the question is
answered from the events instead.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from datetime import datetime
from typing import Any

from ....core.lifecycle.events import ToolReceipt, lazy_receipt
from ....core.lifecycle.status import ToolInvocationStatus
from ....core.replay.stored_index import TIER_OF_CODE, InvocationEntry
from ....core.tools.request import lazy_request
from ..codec.columns import KIND_COMPLETED, KIND_FAILED, KIND_REJECTED, KIND_REQUESTED
from ..port import StaleIndex
from .images import payload_crc, seal_of_row

ENTRY_COLUMNS = 19
"""How many columns `entry_of` reads (see the entry query in `reading`): the invocation's
id, request sequence, request time, tool and tier; its Requested event's data, kind and id;
its start's sequence and time; its end's sequence and time; its status; the end's label and
code; the data, kind and id of its Completed event, if it completed; and the row's seal."""

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


def entry_of(
    session_id: str, row: Sequence[Any], when: Callable[[Any], datetime]
) -> InvocationEntry:
    """An invocation's entry from a row of the entry query; `StaleIndex` if it does not hold
    together (see the module's docstring).

    ``when`` turns a stored timestamp into a UTC ``datetime``.
    """
    (invocation, requested_seq, requested_text, tool_name, tier, r_data, r_kind, r_id,
     started_seq, started_text, ended_seq, completed_text, status, e_label, e_code,
     e_data, e_kind, e_id, seal) = row  # fmt: skip
    requested_at = when(requested_text)
    started_at = None if started_text is None else when(started_text)
    completed_at = None if completed_text is None else when(completed_text)
    sealed = (
        invocation, requested_seq, status, requested_at, started_seq, started_at, ended_seq,
        completed_at, tool_name, tier, e_label, e_code, payload_crc(r_data),
        payload_crc(e_data) if status == KIND_COMPLETED else 0,
    )  # fmt: skip
    if (
        r_kind != KIND_REQUESTED
        or r_id != invocation
        or (ended_seq is None) != (status in _OPEN_CODES)
        or (started_seq is None) != (started_at is None)
        or not requested_seq < (started_seq or requested_seq + 1) <= (ended_seq or _AFTER_ALL)
        or (ended_seq is not None and ended_seq <= requested_seq)
        or (status == KIND_COMPLETED and (e_kind != KIND_COMPLETED or e_id != invocation))
        or seal != seal_of_row(session_id, sealed)
    ):
        raise StaleIndex(f"the index row of invocation {invocation!r} does not match its events")
    receipt: ToolReceipt | None = None
    reason: str | None = None
    recoverable: bool | None = None
    if ended_seq is None:
        final = _OPEN[started_seq is not None]
    else:
        final = _ENDINGS[status]
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
            final,
            receipt,
            reason,
            recoverable,
        ),
    )
    return entry
