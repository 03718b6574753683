"""A replay's final state as plain values, to send from a worker process to its parent.

Pickling the frozen values themselves cost more than the replay: every record's
request, receipt and maps, and every moment, went through Python-level
reducers, and the parent rebuilt and froze every payload. A record goes
instead as a tuple of strings, numbers and nested tuples, which pickle in C:

* a payload not decoded yet (`lazy_request`, `lazy_receipt`: what a store's
  replay gives) goes as the store's text it decodes from, and the parent builds
  it as lazily as the worker had it, so neither side decodes it;
* a moment in UTC (what every store reads) goes as its microseconds since the
  epoch; any other as the ``datetime`` it is.

`tests/test_parallel_and_follow.py` holds the states rebuilt to the states
replayed in one process.
"""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from typing import Any

from ...core.lifecycle._engine.rows import record_from_fields
from ...core.lifecycle.events import ToolReceipt, lazy_receipt, undecoded_text
from ...core.lifecycle.record import ToolInvocationRecord
from ...core.lifecycle.state import ToolState
from ...core.lifecycle.status import ToolInvocationStatus
from ...core.replay.fold import Replay
from ...core.tools.ids import InvocationId
from ...core.tools.json_values import thaw_json
from ...core.tools.request import ToolRequest, lazy_request, undecoded_source
from ...core.tools.tier import Tier

Packed = tuple[Any, ...]
"""A record as plain values."""

Shipped = Replay[Any] | tuple[list[Packed], int, tuple[Any, ...]]
"""A replay as a worker sends it: a `ToolState`'s records packed, any other state as it is."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_TIER_VALUES = {tier: tier.value for tier in Tier}
_TIERS = {tier.value: tier for tier in Tier}
_STATUS_VALUES = {status: status.value for status in ToolInvocationStatus}
_STATUSES = {status.value: status for status in ToolInvocationStatus}


def _moment(when: datetime | None) -> datetime | int | None:
    if when is None or when.tzinfo is not UTC:
        return when
    return (when - _EPOCH) // _MICROSECOND


def _pack_record(record: ToolInvocationRecord) -> Packed:
    request, receipt = record.request, record.receipt
    source = undecoded_source(request)
    arguments: object = source if source is not None else thaw_json(request.arguments)
    shipped: object = None
    if receipt is not None:
        text = undecoded_text(receipt)
        shipped = (
            (receipt.exit_code, text)
            if text is not None
            else (receipt.exit_code, thaw_json(receipt.output), dict(receipt.metadata))
        )
    return (
        record.invocation_id,
        record.tool_name,
        _TIER_VALUES[record.tier],
        request.tool_name,
        arguments,
        _STATUS_VALUES[record.status],
        shipped,
        _moment(record.requested_at),
        _moment(record.completed_at),
        _moment(record.started_at),
        record.reason,
        record.recoverable,
    )


def pack(replay: Replay[Any]) -> Shipped:
    """A replay as plain values, which pickle at C speed (a `ToolState`'s); any other as it is."""
    if not isinstance(replay.state, ToolState):
        return replay
    return (
        [_pack_record(r) for r in replay.state.records()],
        replay.last_sequence,
        replay.quarantined,
    )


def unpack(packed: Shipped) -> Replay[Any]:
    """The replay `pack` was given, equal to it."""
    if isinstance(packed, Replay):
        return packed
    rows, last_sequence, quarantined = packed
    records = [_unpack_record(*row) for row in rows]
    # One batch: the records are known, so no intermediate state is built.
    state = ToolState.empty().with_batch(
        {}, records, {record.invocation_id: position for position, record in enumerate(records)}
    )
    return Replay(state=state, last_sequence=last_sequence, quarantined=quarantined)


def _unpack_record(  # noqa: PLR0917  # a packed record's twelve fields, in its order
    invocation: InvocationId,
    tool: str,
    tier: str,
    request_tool: str,
    arguments: Any,
    status: str,
    receipt: tuple[Any, ...] | None,
    requested: datetime | int,
    completed: datetime | int | None,
    started: datetime | int | None,
    reason: str | None,
    recoverable: bool | None,
) -> ToolInvocationRecord:
    # Written out rather than through helpers: the parent rebuilds every record it is sent.
    epoch, micro = _EPOCH, _MICROSECOND
    return record_from_fields(
        (
            invocation,
            tool,
            _TIERS[tier],
            lazy_request(request_tool, *arguments)
            if type(arguments) is tuple
            else ToolRequest(tool_name=request_tool, arguments=arguments),
            _STATUSES[status],
            None
            if receipt is None
            else lazy_receipt(*receipt)
            if len(receipt) == 2
            else ToolReceipt(output=receipt[1], exit_code=receipt[0], metadata=receipt[2]),
            epoch + micro * requested if type(requested) is int else requested,
            epoch + micro * completed if type(completed) is int else completed,
            epoch + micro * started if type(started) is int else started,
            reason,
            recoverable,
        )
    )
