"""A replay's final state as plain values, to send from a worker process to its parent.

Pickling the frozen values themselves cost more than the replay: every record's
request, receipt and maps, and every moment, went through Python-level
reducers, and the parent rebuilt and froze every payload. A state goes instead
as columns (a record's fields, each for every record) of strings, numbers and
small tuples, which pickle in C and are mostly converted by ``map`` over C
callables rather than a Python call per value:

* a payload not decoded yet (`lazy_request`, `lazy_receipt`: what a store's
  replay gives) goes as the store's text it decodes from, and the parent builds
  it as lazily as the worker had it, so neither side decodes it;
* a column of moments all in UTC (what every store reads) goes as their
  microseconds since the epoch; any other as the ``datetime`` values it holds.

`tests/test_parallel_and_follow.py` holds the states rebuilt to the states
replayed in one process.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import UTC, datetime, timedelta
from functools import partial
from itertools import repeat
from operator import add, attrgetter, floordiv, mul, sub
from typing import Any

from ...core.lifecycle.events import ToolReceipt, lazy_receipt, undecoded_text
from ...core.lifecycle.record import ToolInvocationRecord
from ...core.lifecycle.state import ToolState
from ...core.lifecycle.status import ToolInvocationStatus
from ...core.replay.fold import Replay
from ...core.tools.json_values import thaw_json
from ...core.tools.request import ToolRequest, lazy_request, undecoded_source
from ...core.tools.tier import Tier

Columns = tuple[Any, ...]
"""A state's records as columns of plain values."""

Shipped = Replay[Any] | tuple[Columns, int, tuple[Any, ...]]
"""A replay as a worker sends it: a `ToolState`'s records as columns, any other as it is."""

_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
_TIER_VALUES = {tier: tier.value for tier in Tier}
_TIERS = {tier.value: tier for tier in Tier}
_STATUS_VALUES = {status: status.value for status in ToolInvocationStatus}
_STATUSES = {status.value: status for status in ToolInvocationStatus}
_new_record = partial(tuple.__new__, ToolInvocationRecord)  # a NamedTuple from its fields, in C
_tool_name = attrgetter("tool_name")
_tzinfo = attrgetter("tzinfo")


def pack(replay: Replay[Any]) -> Shipped:
    """A replay as plain values, which pickle at C speed (a `ToolState`'s); any other as it is."""
    if not isinstance(replay.state, ToolState):
        return replay
    records = list(replay.state.records())
    columns: Columns = ()
    if records:
        ids, tools, tiers, requests, statuses, receipts, *moments, reasons, recoverables = zip(
            *records, strict=True
        )
        columns = (
            ids,
            tools,
            list(map(_TIER_VALUES.__getitem__, tiers)),
            _pack_requests(requests),
            list(map(_STATUS_VALUES.__getitem__, statuses)),
            list(map(_pack_receipt, receipts)),
            *map(_pack_moments, moments),
            reasons,
            recoverables,
        )
    return columns, replay.last_sequence, replay.quarantined


def unpack(packed: Shipped) -> Replay[Any]:
    """The replay `pack` was given, equal to it."""
    if isinstance(packed, Replay):
        return packed
    columns, last_sequence, quarantined = packed
    records: list[ToolInvocationRecord] = []
    if columns:
        ids, tools, tiers, requests, statuses, receipts, *moments, reasons, recoverables = columns
        records = list(
            map(
                _new_record,
                zip(
                    ids,
                    tools,
                    map(_TIERS.__getitem__, tiers),
                    _unpack_requests(requests),
                    map(_STATUSES.__getitem__, statuses),
                    map(_unpack_receipt, receipts),
                    *map(_unpack_moments, moments),
                    reasons,
                    recoverables,
                    strict=True,
                ),
            )
        )
    # One batch: the records are known, so no intermediate state is built.
    state = ToolState.empty().with_batch(
        {}, records, {record.invocation_id: position for position, record in enumerate(records)}
    )
    return Replay(state=state, last_sequence=last_sequence, quarantined=quarantined)


def _pack_requests(requests: Sequence[ToolRequest]) -> tuple[list[str], list[Any]]:
    """The requests' tool names, and for each the store's text and where its arguments lie
    in it, or (decoded already) the arguments themselves."""
    sources: list[Any] = list(map(undecoded_source, requests))
    if None in sources:
        sources = [
            thaw_json(request.arguments) if source is None else source
            for request, source in zip(requests, sources, strict=True)
        ]
    return list(map(_tool_name, requests)), sources


def _unpack_requests(packed: tuple[list[str], list[Any]]) -> Iterable[ToolRequest]:
    names, sources = packed
    return map(_request, names, sources)


def _request(tool_name: str, source: Any) -> ToolRequest:
    if type(source) is tuple:
        return lazy_request(tool_name, source[0], source[1])
    return ToolRequest(tool_name=tool_name, arguments=source)


def _pack_receipt(receipt: ToolReceipt | None) -> tuple[Any, ...] | None:
    if receipt is None:
        return None
    text = undecoded_text(receipt)
    if text is not None:
        return receipt.exit_code, text
    return receipt.exit_code, thaw_json(receipt.output), dict(receipt.metadata)


def _unpack_receipt(packed: tuple[Any, ...] | None) -> ToolReceipt | None:
    if packed is None:
        return None
    if len(packed) == 2:
        return lazy_receipt(packed[0], packed[1])
    return ToolReceipt(exit_code=packed[0], output=packed[1], metadata=packed[2])


def _pack_moments(moments: Sequence[datetime | None]) -> tuple[bool, Sequence[Any]]:
    """``(True, microseconds since the epoch, or None)`` for a column of moments all in
    UTC where set; ``(False, the moments)`` for any other."""
    if set(map(_tzinfo, filter(None, moments))) - {UTC}:
        return False, moments
    if None in moments:  # calls not ended (or not started) yet
        return True, [None if m is None else (m - _EPOCH) // _MICROSECOND for m in moments]
    return True, list(map(floordiv, map(sub, moments, repeat(_EPOCH)), repeat(_MICROSECOND)))


def _unpack_moments(packed: tuple[bool, Sequence[Any]]) -> Iterable[datetime | None]:
    in_microseconds, moments = packed
    if not in_microseconds:
        return moments
    if None in moments:
        return [None if m is None else _EPOCH + _MICROSECOND * m for m in moments]
    return map(add, repeat(_EPOCH), map(mul, repeat(_MICROSECOND), moments))
