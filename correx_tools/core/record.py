"""One invocation's record as the reducer builds it."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import final

from .events import ToolReceipt, ToolRequest
from .ids import InvocationId
from .status import ToolInvocationStatus
from .tier import Tier


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolInvocationRecord:
    """The state of one tool invocation after some prefix of its session.

    ``requested_at`` is the ``recorded_at`` of the Requested event,
    ``started_at`` that of the Started event, ``completed_at`` that of the
    terminal event. ``receipt`` is set only on COMPLETED and ``reason`` only on
    FAILED and REJECTED; every field is ``None`` until it applies.
    """

    invocation_id: InvocationId
    tool_name: str
    tier: Tier
    request: ToolRequest
    status: ToolInvocationStatus
    receipt: ToolReceipt | None
    requested_at: datetime
    completed_at: datetime | None
    started_at: datetime | None = None
    reason: str | None = None
    recoverable: bool | None = None

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # Positional and through make_record: dataclasses' frozen-slots pickling sets
        # each field through Python code, which made shipping states between processes
        # (replay_all) cost more than replaying them.
        return make_record, tuple(getattr(self, name) for name in _FIELDS)


_NEW = object.__new__
_FIELDS = (
    "invocation_id",
    "tool_name",
    "tier",
    "request",
    "status",
    "receipt",
    "requested_at",
    "completed_at",
    "started_at",
    "reason",
    "recoverable",
)
if ToolInvocationRecord.__slots__ != _FIELDS:  # pragma: no cover - guards make_record's order
    raise AssertionError("make_record must list ToolInvocationRecord's fields in order")
(
    _set_invocation_id,
    _set_tool_name,
    _set_tier,
    _set_request,
    _set_status,
    _set_receipt,
    _set_requested_at,
    _set_completed_at,
    _set_started_at,
    _set_reason,
    _set_recoverable,
) = (getattr(ToolInvocationRecord, name).__set__ for name in _FIELDS)


def make_record(  # noqa: PLR0917 - positional on purpose: it is the reducer's hot path
    invocation_id: InvocationId,
    tool_name: str,
    tier: Tier,
    request: ToolRequest,
    status: ToolInvocationStatus,
    receipt: ToolReceipt | None,
    requested_at: datetime,
    completed_at: datetime | None,
    started_at: datetime | None,
    reason: str | None,
    recoverable: bool | None,
) -> ToolInvocationRecord:
    """Build a record from already-checked fields, positionally.

    The reducer's constructor: it runs once per event, and writing the slots
    directly costs a third of the frozen dataclass ``__init__``. The result is
    an ordinary, equal-by-value ``ToolInvocationRecord``.
    """
    record = _NEW(ToolInvocationRecord)
    _set_invocation_id(record, invocation_id)
    _set_tool_name(record, tool_name)
    _set_tier(record, tier)
    _set_request(record, request)
    _set_status(record, status)
    _set_receipt(record, receipt)
    _set_requested_at(record, requested_at)
    _set_completed_at(record, completed_at)
    _set_started_at(record, started_at)
    _set_reason(record, reason)
    _set_recoverable(record, recoverable)
    return record
