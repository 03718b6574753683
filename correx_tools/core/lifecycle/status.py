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

    # Identity hashing, in C: members are singletons, and the transition table is
    # looked up with a status in its key once per event (Enum's own hash is Python).
    __hash__ = object.__hash__

    @property
    def is_terminal(self) -> bool:
        """Whether no further transition is possible from this status."""
        return self in TERMINAL


TERMINAL = frozenset(
    {ToolInvocationStatus.COMPLETED, ToolInvocationStatus.FAILED, ToolInvocationStatus.REJECTED}
)
"""The statuses an invocation ends in (nothing moves it on from them)."""
