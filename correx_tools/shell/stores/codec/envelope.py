"""Events as versioned JSON envelopes: the one format every store writes.

An envelope is ``{"type", "version", "data", "session_id", "sequence",
"recorded_at", "crc32"}``. ``type`` is a stable tag (never a Python path),
``recorded_at`` is ISO 8601 UTC with microseconds, and ``crc32`` is the
``zlib.crc32`` of the canonical JSON of the envelope without it. Decoding goes
through the value constructors; upcasters bring old versions up to date; a
type this library does not know becomes an `OpaqueEvent` and is
written back exactly as it was read. JSON is read strictly: no ``NaN`` or
``Infinity``, no duplicate keys.
"""

from __future__ import annotations

import re
import zlib
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from typing import Any, Final

from pyrsistent import PMap, pmap

from ....core.lifecycle.checked import (
    checked_completed,
    checked_failed,
    checked_rejected,
    checked_requested,
    checked_started,
    checked_stored_event,
)
from ....core.lifecycle.events import (
    COMPLETED_TYPE,
    FAILED_TYPE,
    REJECTED_TYPE,
    REQUESTED_TYPE,
    STARTED_TYPE,
    OpaqueEvent,
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    checked_receipt,
    lazy_receipt,
)
from ....core.tools.ids import InvocationId, SessionId
from ....core.tools.json_values import freeze_json, freeze_object, string_map, thaw_json
from ....core.tools.request import checked_request, lazy_request
from ....core.tools.tier import Tier
from .strict_json import EnvelopeError, canonical_bytes

REQUESTED: Final = REQUESTED_TYPE
STARTED: Final = STARTED_TYPE
COMPLETED: Final = COMPLETED_TYPE
FAILED: Final = FAILED_TYPE
REJECTED: Final = REJECTED_TYPE
CURRENT_VERSION: Final = 1

MAX_EVENT_BYTES: Final = 1 << 20
"""An event's encoded envelope may not be larger than this (1 MiB)."""

Upcaster = Callable[[dict[str, Any]], dict[str, Any]]
"""Turns the ``data`` of version n of a type into version n + 1."""

UPCASTERS: Mapping[tuple[str, int], Upcaster] = {}
"""``(type, version) -> upcaster``; empty while every type is at version 1."""

# ASCII digits only (``\d`` would take any Unicode digit), no groups: fromisoformat
# reads the fields once the shape is right, and groups would make every match dearer.
_TIMESTAMP = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{6}Z")


def format_timestamp(moment: datetime) -> str:
    """``2026-01-01T09:30:00.000123Z``: UTC, a four-digit year, always six fractional digits."""
    if moment.tzinfo is not UTC:
        moment = moment.astimezone(UTC)
    # isoformat pads the year to four digits (strftime's %Y gives "999" for 999), and is
    # faster; in UTC it ends "+00:00", which becomes "Z".
    return moment.isoformat(timespec="microseconds")[:-6] + "Z"


def iso_time(moment: datetime | None) -> str | None:
    """A moment as the stores write it (`format_timestamp`), or ``None``: as the JSON
    documents show a time."""
    return None if moment is None else format_timestamp(moment)


def parse_timestamp(text: object) -> datetime:
    """The inverse of `format_timestamp`; anything else is an `EnvelopeError`."""
    if not isinstance(text, str) or _TIMESTAMP.fullmatch(text) is None:
        raise EnvelopeError(f"recorded_at {str(text)[:40]!r} is not ISO 8601 UTC with microseconds")
    try:
        # The shape is checked above; fromisoformat (3.11+) reads "Z" as UTC.
        return datetime.fromisoformat(text)
    except ValueError as error:
        raise EnvelopeError(f"recorded_at {text!r}: {error}") from None


def event_payload(event: object) -> tuple[str, int, dict[str, Any]]:
    """``(type, version, data)`` of an event; a ``TypeError`` for values no tag describes."""
    match event:
        case ToolInvocationRequestedEvent():
            return (
                REQUESTED,
                CURRENT_VERSION,
                {
                    "invocation_id": event.invocation_id,
                    "tool_name": event.tool_name,
                    "tier": event.tier.value,
                    "request": {
                        "tool_name": event.request.tool_name,
                        "arguments": thaw_json(event.request.arguments),
                    },
                },
            )
        case ToolExecutionStartedEvent():
            return STARTED, CURRENT_VERSION, {"invocation_id": event.invocation_id}
        case ToolExecutionCompletedEvent():
            receipt = event.receipt
            return (
                COMPLETED,
                CURRENT_VERSION,
                {
                    "invocation_id": event.invocation_id,
                    "receipt": {
                        "output": thaw_json(receipt.output),
                        "exit_code": receipt.exit_code,
                        "metadata": dict(receipt.metadata),
                    },
                },
            )
        case ToolExecutionFailedEvent():
            return (
                FAILED,
                CURRENT_VERSION,
                {
                    "invocation_id": event.invocation_id,
                    "reason": event.reason,
                    "recoverable": event.recoverable,
                },
            )
        case ToolExecutionRejectedEvent():
            return (
                REJECTED,
                CURRENT_VERSION,
                {"invocation_id": event.invocation_id, "reason": event.reason},
            )
        case OpaqueEvent():
            return event.type, event.version, thaw_json(event.data)
        case _:
            raise TypeError(
                f"no envelope type for a {type(event).__name__}; wrap it in OpaqueEvent"
            )


def decode_payload(
    type_tag: str,
    version: int,
    data: Mapping[str, Any],
    upcasters: Mapping[tuple[str, int], Upcaster] = UPCASTERS,
    *,
    text: str | None = None,
) -> object:
    """The event for ``(type, version, data)``; an `EnvelopeError` names what is wrong.

    ``text``, when the caller has it, is JSON text the caller parsed strictly to
    ``data``: a tool event's payload values (arguments, output, metadata) then
    decode from it when first used instead of now. Every field is checked now
    either way.
    """
    if type_tag not in _DECODERS:
        return OpaqueEvent(type=type_tag, version=version, data=freeze_object(data))
    body = data
    if version < CURRENT_VERSION:
        body = dict(data)  # upcasters may change the body they are given
        while version < CURRENT_VERSION:
            upcaster = upcasters.get((type_tag, version))
            if upcaster is None:
                raise EnvelopeError(
                    f"{type_tag} version {version} has no upcaster to {version + 1}"
                )
            body, version = upcaster(body), version + 1
    if version != CURRENT_VERSION:
        raise EnvelopeError(
            f"{type_tag} version {version} is newer than this library ({CURRENT_VERSION})"
        )
    if not body.keys() <= _FIELDS[type_tag]:
        raise EnvelopeError(f"{type_tag}: {_unknown_fields('data', body, _FIELDS[type_tag])}")
    try:
        if text is not None and body is data:
            if type_tag == REQUESTED:
                return _requested(body, text)
            if type_tag == COMPLETED:
                return _completed(body, text)
        return _DECODERS[type_tag](body)
    except KeyError as error:
        raise EnvelopeError(f"{type_tag}: data lacks {error.args[0]!r}") from None
    except (TypeError, ValueError) as error:
        raise EnvelopeError(f"{type_tag}: {error}") from None


def _text(data: Mapping[str, Any], key: str) -> str:
    value = data[key]
    if not isinstance(value, str):
        raise ValueError(f"{key} must be a string")
    return value


def _invocation_id(data: Mapping[str, Any]) -> InvocationId:
    # Annotated rather than wrapped in InvocationId(): a NewType call is a Python
    # call, and every event has an id.
    value: InvocationId = data["invocation_id"]
    if not isinstance(value, str) or not value:
        raise ValueError("invocation_id must be a non-empty string")
    return value


def _tier(data: Mapping[str, Any]) -> Tier:
    value = data["tier"]
    tier = _TIERS.get(value) if isinstance(value, str) else None
    if tier is None:
        raise ValueError(f"tier {str(value)[:40]!r} is not one of {', '.join(_TIERS)}")
    return tier


def _unknown_fields(where: str, body: Mapping[str, Any], known: frozenset[str]) -> str:
    # Refused rather than dropped: the event could not be written back as it was read.
    extra = ", ".join(repr(key[:60]) for key in sorted(body.keys() - known)[:5])
    return f"{where} has unknown fields {extra}, which this library would drop"


def _requested(data: Mapping[str, Any], text: str | None = None) -> object:
    request = data["request"]
    arguments = request.get("arguments", _NO_ARGUMENTS) if isinstance(request, dict) else None
    if not isinstance(arguments, dict):
        raise ValueError("request must be an object with an arguments object")
    if not request.keys() <= _REQUEST_FIELDS:
        raise ValueError(_unknown_fields("data.request", request, _REQUEST_FIELDS))
    tool_name = _text(request, "tool_name")
    return checked_requested(
        _invocation_id(data),
        _text(data, "tool_name"),
        _tier(data),
        checked_request(tool_name, freeze_object(arguments))
        if text is None or "arguments" not in request
        else lazy_request(tool_name, text, ARGUMENTS_AT),
    )


def _completed(data: Mapping[str, Any], text: str | None = None) -> object:
    receipt = data["receipt"]
    if not isinstance(receipt, dict):
        raise ValueError("receipt must be an object")
    if not receipt.keys() <= _RECEIPT_FIELDS:
        raise ValueError(_unknown_fields("data.receipt", receipt, _RECEIPT_FIELDS))
    exit_code = receipt.get("exit_code", 0)
    if type(exit_code) is not int:
        raise ValueError("receipt.exit_code must be an integer")
    metadata = receipt.get("metadata", _NO_ARGUMENTS)
    if not isinstance(metadata, dict):
        raise ValueError("receipt.metadata must be an object")
    if text is not None:
        if not all(type(value) is str for value in metadata.values()):
            string_map(metadata)  # raises, naming the value that is not a string
        return checked_completed(_invocation_id(data), lazy_receipt(exit_code, text))
    return checked_completed(
        _invocation_id(data),
        checked_receipt(
            freeze_json(receipt.get("output")),
            exit_code,
            string_map(metadata) if metadata else _EMPTY_MAP,
        ),
    )


def _failed(data: Mapping[str, Any]) -> object:
    recoverable = data["recoverable"]
    if not isinstance(recoverable, bool):
        raise ValueError("recoverable must be a boolean")
    return checked_failed(_invocation_id(data), _text(data, "reason"), recoverable)


# Decoders build through the checked_* constructors: each field is checked here
# first, and a replay decodes every event of a session.
_DECODERS: dict[str, Callable[[Mapping[str, Any]], object]] = {
    REQUESTED: _requested,
    STARTED: lambda data: checked_started(_invocation_id(data)),
    COMPLETED: _completed,
    FAILED: _failed,
    REJECTED: lambda data: checked_rejected(_invocation_id(data), _text(data, "reason")),
}
_FIELDS: dict[str, frozenset[str]] = {
    REQUESTED: frozenset({"invocation_id", "tool_name", "tier", "request"}),
    STARTED: frozenset({"invocation_id"}),
    COMPLETED: frozenset({"invocation_id", "receipt"}),
    FAILED: frozenset({"invocation_id", "reason", "recoverable"}),
    REJECTED: frozenset({"invocation_id", "reason"}),
}
_REQUEST_FIELDS = frozenset({"tool_name", "arguments"})
ARGUMENTS_AT = ("request", "arguments")
_RECEIPT_FIELDS = frozenset({"output", "exit_code", "metadata"})
_NO_ARGUMENTS: dict[str, Any] = {}
_EMPTY_MAP: PMap[str, Any] = pmap()
_TIERS: dict[str, Tier] = {tier.value: tier for tier in Tier}


def checksum(envelope: Mapping[str, Any]) -> int:
    """``zlib.crc32`` of the canonical JSON of ``envelope`` without its ``crc32``."""
    body = {key: value for key, value in envelope.items() if key != "crc32"}
    return zlib.crc32(canonical_bytes(body))


def to_envelope(stored: StoredEvent) -> dict[str, Any]:
    """The envelope of a stored event, checksum included."""
    type_tag, version, data = event_payload(stored.event)
    envelope: dict[str, Any] = {
        "type": type_tag,
        "version": version,
        "data": data,
        "session_id": stored.session_id,
        "sequence": stored.sequence,
        "recorded_at": format_timestamp(stored.recorded_at),
    }
    envelope["crc32"] = checksum(envelope)
    return envelope


def from_envelope(
    envelope: object, upcasters: Mapping[tuple[str, int], Upcaster] = UPCASTERS
) -> StoredEvent:
    """The stored event of an envelope; an `EnvelopeError` says what is wrong."""
    if not isinstance(envelope, dict):
        raise EnvelopeError("an envelope must be a JSON object")
    missing = [
        key
        for key in ("type", "version", "data", "session_id", "sequence", "recorded_at")
        if key not in envelope
    ]
    if missing:
        raise EnvelopeError(f"envelope lacks {', '.join(missing)}")
    extra = sorted(
        set(envelope)
        - {"type", "version", "data", "session_id", "sequence", "recorded_at", "crc32"}
    )
    if extra:
        raise EnvelopeError(f"envelope has unknown fields {', '.join(extra)}")
    if "crc32" in envelope and envelope["crc32"] != checksum(envelope):
        raise EnvelopeError("checksum mismatch: the line was changed or damaged")
    type_tag, version, data = envelope["type"], envelope["version"], envelope["data"]
    session, sequence = envelope["session_id"], envelope["sequence"]
    if not isinstance(type_tag, str) or not type_tag:
        raise EnvelopeError("type must be a non-empty string")
    if type(version) is not int or version < 0:
        raise EnvelopeError("version must be a non-negative integer")
    if not isinstance(data, dict):
        raise EnvelopeError("data must be an object")
    if not isinstance(session, str) or not session:
        raise EnvelopeError("session_id must be a non-empty string")
    if type(sequence) is not int or sequence < 1:
        raise EnvelopeError("sequence must be an integer >= 1")
    return checked_stored_event(
        SessionId(session),
        sequence,
        parse_timestamp(envelope["recorded_at"]),
        decode_payload(type_tag, version, data, upcasters),
    )
