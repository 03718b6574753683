"""One invocation's record as the reducer builds it."""

from __future__ import annotations

from datetime import datetime
from typing import NamedTuple

from ..tools.ids import InvocationId
from ..tools.request import ToolRequest
from ..tools.tier import Tier
from .events import ToolReceipt
from .status import ToolInvocationStatus


class ToolInvocationRecord(NamedTuple):
    """The state of one tool invocation after some prefix of its session.

    ``requested_at`` is the ``recorded_at`` of the Requested event,
    ``started_at`` that of the Started event, ``completed_at`` that of the
    terminal event. ``receipt`` is set only on COMPLETED and ``reason`` only on
    FAILED and REJECTED; every field is ``None`` until it applies.

    A ``NamedTuple`` rather than a frozen dataclass: a fold builds one per
    invocation (and, stepping, one per event), and a tuple is built in one C
    call where a slotted dataclass sets eleven attributes one by one.
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
