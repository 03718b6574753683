"""The events of a session and their stored envelope.

The five tool lifecycle events form `ToolEvent`. A session's stream can
hold other events too (a user message, an approval); the tool reducer leaves
its state unchanged for them. `OpaqueEvent` is what a store reads for
an event type it does not know, so that it can write it back unchanged.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import FrozenInstanceError, dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeAlias, final

from pyrsistent import PMap, pmap

from ..tools.ids import InvocationId, SessionId, invocation_id
from ..tools.json_values import (
    freeze_json,
    freeze_object,
    lone_surrogate_at,
    string_map,
    values_at,
)
from ..tools.request import ToolRequest
from ..tools.tier import Tier

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
class ToolReceipt:
    """What a completed tool produced: its JSON output, exit code and string metadata.

    An immutable value, equal and hashing by its three fields. A receipt read
    from a store may decode its output and metadata from the store's canonical
    JSON on first access (`lazy_receipt`), which gives the same values.

    >>> ToolReceipt(output={"bytes": 12}, exit_code=0)
    ToolReceipt(output=pmap({'bytes': 12}), exit_code=0, metadata=pmap({}))
    """

    __slots__ = ("_metadata", "_output", "_source", "exit_code")
    __match_args__ = ("output", "exit_code", "metadata")

    exit_code: int
    _output: Any
    _metadata: PMap[str, str]
    _source: str | None  # the event's data text while output and metadata are not decoded

    def __init__(
        self, *, output: Any = None, exit_code: int = 0, metadata: Mapping[str, str] | None = None
    ) -> None:
        if type(exit_code) is not int:
            raise TypeError(f"exit_code must be an int, not {type(exit_code).__name__}")
        _set_output(self, freeze_json(output))
        _set_exit_code(self, exit_code)
        _set_metadata(self, _NO_METADATA if metadata is None else string_map(metadata))
        _set_receipt_source(self, None)

    def _decode(self, text: str) -> None:
        output, metadata = values_at(text, (_OUTPUT, _METADATA), (None, _NO_METADATA))
        _set_output(self, output)
        _set_metadata(self, string_map(metadata))
        _set_receipt_source(self, None)

    @property
    def output(self) -> Any:
        """The tool's output, frozen JSON (decoded now if it was not yet)."""
        if self._source is not None:
            self._decode(self._source)
        return self._output

    @property
    def metadata(self) -> PMap[str, str]:
        """String metadata about the run (decoded now if it was not yet)."""
        if self._source is not None:
            self._decode(self._source)
        return self._metadata

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolReceipt):
            return NotImplemented
        if self.exit_code != other.exit_code:
            return False
        if self._source is not None and self._source == other._source:
            return True
        same: bool = self.output == other.output and self.metadata == other.metadata
        return same

    def __hash__(self) -> int:
        return hash((self.output, self.exit_code, self.metadata))

    def __repr__(self) -> str:
        return (
            f"ToolReceipt(output={self.output!r}, exit_code={self.exit_code!r}, "
            f"metadata={self.metadata!r})"
        )

    def __setattr__(self, name: str, value: object) -> None:
        raise FrozenInstanceError(f"cannot assign to field {name!r}")

    def __delattr__(self, name: str) -> None:
        raise FrozenInstanceError(f"cannot delete field {name!r}")

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        return checked_receipt, (self.output, self.exit_code, self.metadata)


_NO_METADATA: PMap[str, str] = pmap()
_OUTPUT = ("receipt", "output")
_METADATA = ("receipt", "metadata")
_set_output = ToolReceipt.__dict__["_output"].__set__
_set_exit_code = ToolReceipt.__dict__["exit_code"].__set__
_set_metadata = ToolReceipt.__dict__["_metadata"].__set__
_set_receipt_source = ToolReceipt.__dict__["_source"].__set__


def checked_receipt(output: Any, exit_code: int, metadata: PMap[str, str]) -> ToolReceipt:
    """A receipt of frozen output, an int exit code and a ``PMap`` of strings (for decoders)."""
    receipt: ToolReceipt = object.__new__(ToolReceipt)
    _set_output(receipt, output)
    _set_exit_code(receipt, exit_code)
    _set_metadata(receipt, metadata)
    _set_receipt_source(receipt, None)
    return receipt


def undecoded_text(receipt: ToolReceipt) -> str | None:
    """The Completed event's data text while the receipt's output and metadata are not
    decoded yet (`lazy_receipt`); ``None`` once they are, or for a receipt built from values."""
    return receipt._source


def plain_receipt(receipt: ToolReceipt) -> tuple[Any, Mapping[str, str], str | None]:
    """The output and metadata for one look, and the store's text they were read from.

    While they are not decoded yet (`lazy_receipt`), they are decoded from the text as
    plain JSON (the same values as `ToolReceipt.output` and ``metadata``, not frozen and
    not kept), and the text is given too (every string and member name of the output is
    spelled in it); else the frozen values and ``None``. The plain values must not be
    changed.
    """
    text = receipt._source
    if text is None:
        return receipt._output, receipt._metadata, None
    root: Any = json.loads(text)
    found = root.get(_OUTPUT[0]) if isinstance(root, dict) else None
    if not isinstance(found, dict):
        return None, _NO_METADATA, text
    metadata = found.get(_METADATA[1])
    return found.get(_OUTPUT[1]), metadata if isinstance(metadata, dict) else _NO_METADATA, text


def lazy_receipt(exit_code: int, text: str) -> ToolReceipt:
    """A receipt whose output and metadata are decoded from a Completed event's data when used.

    ``text`` must be canonical JSON a store wrote after checking it.
    """
    receipt: ToolReceipt = object.__new__(ToolReceipt)
    _set_output(receipt, None)
    _set_exit_code(receipt, exit_code)
    _set_metadata(receipt, _NO_METADATA)
    _set_receipt_source(receipt, text)
    return receipt


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
    as what they are); ``version`` is an int from 0 to `MAX_VERSION`.

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
        object.__setattr__(self, "data", freeze_object(self.data))


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class StoredEvent:
    """An event as a store holds it: its session, 1-based sequence and recording time.

    ``event`` is a `ToolEvent` or any other event value of the system.
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
