"""The events of a session and their stored envelope.

The five tool lifecycle events form :data:`ToolEvent`. A session's stream can
hold other events too (a user message, an approval); the tool reducer leaves
its state unchanged for them. :class:`OpaqueEvent` is what a store reads for
an event type it does not know, so that it can write it back unchanged.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeAlias, TypeVar, final

from pyrsistent import PMap, pmap

from .ids import InvocationId, SessionId, invocation_id
from .json_values import freeze_json, freeze_object, lone_surrogate_at
from .tier import Tier

REQUESTED_TYPE = "tool.invocation.requested"
STARTED_TYPE = "tool.execution.started"
COMPLETED_TYPE = "tool.execution.completed"
FAILED_TYPE = "tool.execution.failed"
REJECTED_TYPE = "tool.execution.rejected"
BUILT_IN_TYPES = frozenset(
    {REQUESTED_TYPE, STARTED_TYPE, COMPLETED_TYPE, FAILED_TYPE, REJECTED_TYPE}
)
"""The stable type tags of the five tool events (never a Python path)."""

MAX_VERSION = (1 << 31) - 1
"""The largest event version every store can keep (a 32-bit column)."""


def utc(moment: datetime, *, what: str = "timestamp") -> datetime:
    """Return an aware ``datetime`` normalised to UTC; a naive one is a ``ValueError``."""
    if not isinstance(moment, datetime):
        raise TypeError(f"{what} must be a datetime, not {type(moment).__name__}")
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"{what} must be timezone-aware, got naive {moment.isoformat()}")
    if moment.tzinfo is UTC:
        return moment
    try:
        return moment.astimezone(UTC)
    except OverflowError:
        raise ValueError(
            f"{what} {moment.isoformat()} has no UTC equivalent (it falls outside years 1-9999)"
        ) from None


def _check_text(value: object, what: str) -> None:
    if not isinstance(value, str):
        raise TypeError(f"{what} must be a str, not {type(value).__name__}")


def _check_bool(value: object, what: str) -> None:
    if type(value) is not bool:
        raise TypeError(f"{what} must be a bool, not {type(value).__name__}")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolRequest:
    """A call of a tool: its name and the JSON object of its arguments.

    >>> ToolRequest(tool_name="read_file", arguments={"path": "README.md"})
    ToolRequest(tool_name='read_file', arguments=pmap({'path': 'README.md'}))
    """

    tool_name: str
    arguments: Mapping[str, Any] = field(default_factory=pmap)
    """The arguments, always stored as a frozen ``PMap``."""

    def __post_init__(self) -> None:
        _check_text(self.tool_name, "tool_name")
        if not isinstance(self.arguments, PMap) or not _is_frozen_map(self.arguments):
            object.__setattr__(self, "arguments", freeze_object(self.arguments))


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolReceipt:
    """What a completed tool produced: its JSON output, exit code and string metadata."""

    output: Any = None
    exit_code: int = 0
    metadata: Mapping[str, str] = field(default_factory=pmap)

    def __post_init__(self) -> None:
        if type(self.exit_code) is not int:
            raise TypeError(f"exit_code must be an int, not {type(self.exit_code).__name__}")
        object.__setattr__(self, "output", freeze_json(self.output))
        object.__setattr__(self, "metadata", string_map(self.metadata))


# The events check their fields when built, with the rules the stores' reader
# applies: a value that could not be read back is refused here, not by a store.


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolInvocationRequestedEvent:
    """The agent asked for a tool to be run; opens an invocation's record.

    ``tool_name`` must be the request's own tool name.
    """

    invocation_id: InvocationId
    tool_name: str
    tier: Tier
    request: ToolRequest

    def __post_init__(self) -> None:
        invocation_id(self.invocation_id)
        _check_text(self.tool_name, "tool_name")
        if not isinstance(self.tier, Tier):
            raise TypeError(f"tier must be a Tier, not {type(self.tier).__name__}")
        if not isinstance(self.request, ToolRequest):
            raise TypeError(f"request must be a ToolRequest, not {type(self.request).__name__}")
        if self.request.tool_name != self.tool_name:
            raise ValueError(
                f"tool_name {self.tool_name[:80]!r} differs from the request's tool_name "
                f"{self.request.tool_name[:80]!r}"
            )


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolExecutionStartedEvent:
    """An executor began running the invocation."""

    invocation_id: InvocationId

    def __post_init__(self) -> None:
        invocation_id(self.invocation_id)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolExecutionCompletedEvent:
    """The invocation finished and produced ``receipt``."""

    invocation_id: InvocationId
    receipt: ToolReceipt

    def __post_init__(self) -> None:
        invocation_id(self.invocation_id)
        if not isinstance(self.receipt, ToolReceipt):
            raise TypeError(f"receipt must be a ToolReceipt, not {type(self.receipt).__name__}")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolExecutionFailedEvent:
    """The invocation failed; ``recoverable`` says whether a retry may succeed."""

    invocation_id: InvocationId
    reason: str
    recoverable: bool

    def __post_init__(self) -> None:
        invocation_id(self.invocation_id)
        _check_text(self.reason, "reason")
        _check_bool(self.recoverable, "recoverable")


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolExecutionRejectedEvent:
    """The invocation was refused (by approval or policy) and will not run."""

    invocation_id: InvocationId
    reason: str

    def __post_init__(self) -> None:
        invocation_id(self.invocation_id)
        _check_text(self.reason, "reason")


ToolEvent: TypeAlias = (
    ToolInvocationRequestedEvent
    | ToolExecutionStartedEvent
    | ToolExecutionCompletedEvent
    | ToolExecutionFailedEvent
    | ToolExecutionRejectedEvent
)
"""Any of the five tool lifecycle events."""

_CLASS_OF_TYPE = {
    REQUESTED_TYPE: "ToolInvocationRequestedEvent",
    STARTED_TYPE: "ToolExecutionStartedEvent",
    COMPLETED_TYPE: "ToolExecutionCompletedEvent",
    FAILED_TYPE: "ToolExecutionFailedEvent",
    REJECTED_TYPE: "ToolExecutionRejectedEvent",
}

TOOL_EVENT_TYPES: tuple[type[ToolEvent], ...] = (
    ToolInvocationRequestedEvent,
    ToolExecutionStartedEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class OpaqueEvent:
    """An event of a type this library does not know, kept exactly as it was stored.

    ``type`` is a non-empty tag other than the five tool events' own (build those
    as what they are); ``version`` is an int from 0 to :data:`MAX_VERSION`.

    >>> OpaqueEvent(type="tool.execution.started", version=1)  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: type 'tool.execution.started' is a tool event's own tag: build a ToolExecution...
    """

    type: str
    version: int
    data: Mapping[str, Any] = field(default_factory=pmap)

    def __post_init__(self) -> None:
        _check_text(self.type, "type")
        if not self.type:
            raise ValueError("type must not be empty")
        surrogate = lone_surrogate_at(self.type)
        if "\x00" in self.type or surrogate is not None:
            raise ValueError(
                f"type {self.type[:80]!r} holds a NUL or a lone surrogate, which no store can keep"
            )
        if self.type in BUILT_IN_TYPES:
            raise ValueError(
                f"type {self.type!r} is a tool event's own tag: build a "
                f"{_CLASS_OF_TYPE[self.type]} instead"
            )
        if type(self.version) is not int:
            raise TypeError(f"version must be an int, not {type(self.version).__name__}")
        if not 0 <= self.version <= MAX_VERSION:
            raise ValueError(f"version must be from 0 to {MAX_VERSION}, got {self.version}")
        if not isinstance(self.data, PMap) or not _is_frozen_map(self.data):
            object.__setattr__(self, "data", freeze_object(self.data))


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class StoredEvent:
    """An event as a store holds it: its session, 1-based sequence and recording time.

    ``event`` is a :data:`ToolEvent` or any other event value of the system.
    ``recorded_at`` must be timezone-aware and is normalised to UTC.
    """

    session_id: SessionId
    sequence: int
    recorded_at: datetime
    event: object

    def __post_init__(self) -> None:
        if not isinstance(self.session_id, str) or not self.session_id:
            raise ValueError("session_id must be a non-empty str")
        if type(self.sequence) is not int or self.sequence < 1:
            raise ValueError(f"sequence must be an int >= 1, got {self.sequence!r}")
        recorded_at = utc(self.recorded_at, what="recorded_at")
        if recorded_at is not self.recorded_at:
            object.__setattr__(self, "recorded_at", recorded_at)


def string_map(value: Mapping[str, str]) -> PMap[str, str]:
    """``value`` as a ``PMap`` of strings; anything else is a ``TypeError``."""
    frozen = value if isinstance(value, PMap) else pmap(value)
    for key, item in frozen.items():
        if not isinstance(key, str) or not isinstance(item, str):
            raise TypeError(f"metadata must map str to str, got {key!r}: {item!r}")
    return frozen


def _is_frozen_map(value: PMap[str, Any]) -> bool:
    # A PMap built by hand may still hold a dict or list; freeze those too.
    return all(not isinstance(item, dict | list | set) for item in value.values())


# -- built from checked fields -------------------------------------------------------
#
# A decoder reading a long session builds millions of these values, and the
# dataclass constructors (a frozen dataclass sets each field through
# object.__setattr__, then __post_init__ validates) cost more than the rest
# of a replay. The functions below write the slots directly. They are for
# decoders that have already checked every field and hand over exactly what
# the constructor would store: a UTC ``datetime``, frozen JSON, a ``PMap`` of
# strings. Everything else should call the constructors.

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
_REQUEST = _filler(ToolRequest, "tool_name", "arguments")
_RECEIPT = _filler(ToolReceipt, "output", "exit_code", "metadata")
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


def checked_request(tool_name: str, arguments: PMap[str, Any]) -> ToolRequest:
    """A ``ToolRequest`` of a name and already frozen arguments."""
    return _REQUEST(tool_name, arguments)


def checked_receipt(output: Any, exit_code: int, metadata: PMap[str, str]) -> ToolReceipt:
    """A ``ToolReceipt`` of frozen output, an exit code and a ``PMap`` of strings."""
    return _RECEIPT(output, exit_code, metadata)


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
