"""The lifecycle status of one tool invocation."""

import enum
from typing import final


@final
class ToolInvocationStatus(enum.Enum):
    """Where an invocation is in its lifecycle; it only ever moves forward.

    >>> ToolInvocationStatus.STARTED.is_terminal
    False
    >>> ToolInvocationStatus.REJECTED.is_terminal
    True
    """

    REQUESTED = "requested"
    STARTED = "started"
    COMPLETED = "completed"
    FAILED = "failed"
    REJECTED = "rejected"

    @property
    def is_terminal(self) -> bool:
        """Whether no further transition is possible from this status."""
        return self in _TERMINAL


_TERMINAL = frozenset(
    {ToolInvocationStatus.COMPLETED, ToolInvocationStatus.FAILED, ToolInvocationStatus.REJECTED}
)
