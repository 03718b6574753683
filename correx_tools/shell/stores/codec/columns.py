"""An event's typed columns: the fields a fold needs, kept beside its JSON by the database
stores so that a replay need not parse it.

``kind`` says which event it is (`KIND_REQUESTED` ...; `KIND_OTHER` for any
other event); ``label`` is the tool name (Requested) or the reason (Failed,
Rejected); ``code`` the tier's rank (Requested), the exit code (Completed) or
``recoverable`` as 0 or 1 (Failed). They are derived from the event and never
trusted alone: the index's chain covers them (`correx_tools.shell.stores.sql.indexing`).
"""

from __future__ import annotations

from typing import NamedTuple

from ....core.lifecycle.events import (
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
)
from ....core.replay.stored_index import TIER_CODES

KIND_OTHER, KIND_REQUESTED, KIND_STARTED, KIND_COMPLETED, KIND_FAILED, KIND_REJECTED = range(6)


class TypedColumns(NamedTuple):
    """The fields a fold needs from one event, as columns."""

    kind: int
    invocation_id: str | None
    label: str | None
    code: int | None


OTHER = TypedColumns(KIND_OTHER, None, None, None)
"""The typed columns of an event that is not a tool event."""


def typed_columns(event: object) -> TypedColumns:
    """The typed columns of an event."""
    match event:
        case ToolInvocationRequestedEvent():
            return TypedColumns(
                KIND_REQUESTED, event.invocation_id, event.tool_name, TIER_CODES[event.tier]
            )
        case ToolExecutionStartedEvent():
            return TypedColumns(KIND_STARTED, event.invocation_id, None, None)
        case ToolExecutionCompletedEvent():
            return TypedColumns(KIND_COMPLETED, event.invocation_id, None, event.receipt.exit_code)
        case ToolExecutionFailedEvent():
            return TypedColumns(
                KIND_FAILED, event.invocation_id, event.reason, int(event.recoverable)
            )
        case ToolExecutionRejectedEvent():
            return TypedColumns(KIND_REJECTED, event.invocation_id, event.reason, None)
        case _:
            return OTHER
