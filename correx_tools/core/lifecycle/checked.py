"""Events built from fields already checked: what a store's decoder uses.

A decoder reading a long session builds millions of events, and the frozen
dataclass constructors (each field set through ``object.__setattr__``, then
``__post_init__`` validating it) cost more than the rest of a replay. The
functions here write the slots directly. They are for decoders that have
already checked every field with the same rules the constructors apply, and
hand over exactly what a constructor would store: a UTC ``datetime``, frozen
JSON, a ``PMap`` of strings. Everything else calls the constructors.
``tests/test_envelope.py`` holds decoding through them equal to building
through the constructors.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import datetime
from typing import TypeVar

from ..tools.ids import InvocationId, SessionId
from ..tools.request import ToolRequest
from ..tools.tier import Tier
from .events import (
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolReceipt,
)

T = TypeVar("T")


def _filler(cls: type[T], *names: str) -> Callable[..., T]:
    """A function that builds ``cls`` with the given slots set, in order, from its arguments.

    One closure per arity rather than a loop over the slots: a replay calls
    these once or twice per event, and the loop was most of their cost.
    """
    new = object.__new__
    setters = [cls.__dict__[name].__set__ for name in names]
    match setters:
        case [first]:

            def fill1(a: object) -> T:
                built: T = new(cls)
                first(built, a)
                return built

            return fill1
        case [first, second]:

            def fill2(a: object, b: object) -> T:
                built: T = new(cls)
                first(built, a)
                second(built, b)
                return built

            return fill2
        case [first, second, third]:

            def fill3(a: object, b: object, c: object) -> T:
                built: T = new(cls)
                first(built, a)
                second(built, b)
                third(built, c)
                return built

            return fill3
        case [first, second, third, fourth]:

            def fill4(a: object, b: object, c: object, d: object) -> T:
                built: T = new(cls)
                first(built, a)
                second(built, b)
                third(built, c)
                fourth(built, d)
                return built

            return fill4
    raise ValueError(f"no filler for {len(names)} slots")


_STORED = _filler(StoredEvent, "session_id", "sequence", "recorded_at", "event")
_REQUESTED = _filler(ToolInvocationRequestedEvent, "invocation_id", "tool_name", "tier", "request")
_STARTED = _filler(ToolExecutionStartedEvent, "invocation_id")
_COMPLETED = _filler(ToolExecutionCompletedEvent, "invocation_id", "receipt")
_FAILED = _filler(ToolExecutionFailedEvent, "invocation_id", "reason", "recoverable")
_REJECTED = _filler(ToolExecutionRejectedEvent, "invocation_id", "reason")


def checked_stored_event(
    session_id: SessionId, sequence: int, recorded_at: datetime, event: object
) -> StoredEvent:
    """A ``StoredEvent`` of checked fields (``recorded_at`` in UTC, ``sequence`` >= 1)."""
    return _STORED(session_id, sequence, recorded_at, event)


def checked_requested(
    invocation_id: InvocationId, tool_name: str, tier: Tier, request: ToolRequest
) -> ToolInvocationRequestedEvent:
    """A Requested event of checked fields."""
    return _REQUESTED(invocation_id, tool_name, tier, request)


def checked_started(invocation_id: InvocationId) -> ToolExecutionStartedEvent:
    """A Started event of a checked id."""
    return _STARTED(invocation_id)


def checked_completed(
    invocation_id: InvocationId, receipt: ToolReceipt
) -> ToolExecutionCompletedEvent:
    """A Completed event of checked fields."""
    return _COMPLETED(invocation_id, receipt)


def checked_failed(
    invocation_id: InvocationId, reason: str, recoverable: bool
) -> ToolExecutionFailedEvent:
    """A Failed event of checked fields."""
    return _FAILED(invocation_id, reason, recoverable)


def checked_rejected(invocation_id: InvocationId, reason: str) -> ToolExecutionRejectedEvent:
    """A Rejected event of checked fields."""
    return _REJECTED(invocation_id, reason)
