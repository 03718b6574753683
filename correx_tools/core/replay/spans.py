"""A session as a trace: one span per tool invocation under one span for the session.

The spans follow OpenTelemetry's GenAI semantic conventions for tool
execution (``docs/interop.md`` names the version): each is named
``execute_tool {tool}`` and carries ``gen_ai.operation.name = execute_tool``,
``gen_ai.tool.name``, ``gen_ai.tool.call.id``, ``gen_ai.tool.type`` and the
session as ``gen_ai.conversation.id``; a failed or rejected call has
``error.type`` and an error status with its reason, and so has a call that ran to
its end with an exit code other than 0 (``process.exit.code``; ``error.type``
``tool_exited_nonzero``, the status's message ``exit N``). The model that asked for
a call and its share of that message's tokens are the caller's to add, as
``gen_ai.request.model`` and ``gen_ai.usage.*`` (`usage_attributes`); the session's
span carries the session's in all. A span starts when its
call was requested and ends when the call ended; a call still in flight ends
where the trace was observed (the last event), marked by
``correx.invocation.status``. Arguments and results are the caller's to add
(``extra``), and only on request: they may hold what a trace must not.

A session whose times were never recorded (a transcript that records none: its
stored times only keep the steps in order) has every span at one instant, the
``anchor`` the caller gives (the moment the transcript says the session began, or
the time 0, OpenTelemetry's unknown), with ``correx.times_recorded = false``: OTLP
needs a time, but no time or duration is made up.

Spans come one invocation at a time (`session_spans`), in the order they are
given, and the session's own span last, once every call is known: nothing
holds a whole session's spans. Trace and span ids are derived from the
session and invocation ids, so exporting a session twice gives the same
trace. This module is pure: the encoding into OTLP lives in the shell.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable, Iterable, Iterator, Mapping
from datetime import datetime
from functools import lru_cache
from typing import Any, NamedTuple, Protocol

from ..lifecycle.status import ToolInvocationStatus
from ..tools.tier import Tier

AttributeValue = str | bool | int | float

TOOL_TYPE = "function"
"""``gen_ai.tool.type`` of every call: a tool the agent names with JSON arguments and its
own side runs (the conventions' ``function``; ``extension`` and ``datastore`` are tools
a model's provider runs, which a session here never records)."""


class Span(NamedTuple):
    """One span: ids, name, start and end, attributes, and an error message if it failed."""

    span_id: bytes
    parent_span_id: bytes | None
    name: str
    start: datetime
    end: datetime
    attributes: dict[str, AttributeValue]
    error: str | None


class Call(Protocol):
    """What a span needs of an invocation (a record and an outline both have it)."""

    @property
    def invocation_id(self) -> str:
        """The invocation's id."""
        ...

    @property
    def tool_name(self) -> str:
        """The tool called."""
        ...

    @property
    def tier(self) -> Tier:
        """The call's tier."""
        ...

    @property
    def status(self) -> ToolInvocationStatus:
        """Its status where the trace is observed."""
        ...

    @property
    def requested_at(self) -> datetime:
        """When it was requested."""
        ...

    @property
    def completed_at(self) -> datetime | None:
        """When it ended, if it has."""
        ...

    @property
    def reason(self) -> str | None:
        """Why it failed or was rejected."""
        ...


TIMES_RECORDED = "correx.times_recorded"
"""Set (false) on every span of a session whose times were never recorded."""

EXIT_CODE = "process.exit.code"
"""A completed call's non-zero exit code (OpenTelemetry's process attribute): the call
ended, and said it went wrong."""

_STATUS_NAMES = {status: status.value for status in ToolInvocationStatus}
_TIER_NAMES = {tier: tier.value for tier in Tier}
_ERRORS = {
    ToolInvocationStatus.FAILED: "tool_failed",
    ToolInvocationStatus.REJECTED: "tool_rejected",
}
NONZERO = "tool_exited_nonzero"
"""``error.type`` of a call that ran to its end and exited with a code other than 0."""


def trace_id_of(session_id: str) -> bytes:
    """The session's trace id (16 bytes), the same on every export."""
    return _digest("trace", session_id)[:16]


def invocation_span(
    session_id: str,
    call: Call,
    observed_at: datetime,
    extra: Mapping[str, AttributeValue] | None = None,
    *,
    times_recorded: bool = True,
    anchor: datetime | None = None,
) -> Span:
    """The ``execute_tool`` span of one call, under the session's span; ``extra`` adds
    attributes (the opt-in arguments and result, a non-zero exit code, the tokens);
    without ``times_recorded`` the span is at ``anchor``, with no duration."""
    ended = call.completed_at
    attributes: dict[str, AttributeValue] = {
        "gen_ai.operation.name": "execute_tool",
        "gen_ai.tool.name": call.tool_name,
        "gen_ai.tool.call.id": call.invocation_id,
        "gen_ai.tool.type": TOOL_TYPE,
        "gen_ai.conversation.id": session_id,
        "correx.invocation.status": _STATUS_NAMES[call.status],
        "correx.tier": _TIER_NAMES[call.tier],
    }
    if extra:
        attributes.update(extra)
    error = _ERRORS.get(call.status)
    said = call.reason
    code = attributes.get(EXIT_CODE)
    if call.status is ToolInvocationStatus.COMPLETED and type(code) is int and code != 0:
        error, said = NONZERO, f"exit {code}"
    if error is not None:
        attributes["error.type"] = error
    start = call.requested_at
    if not times_recorded:
        attributes[TIMES_RECORDED] = False
        start = ended = observed_at = _anchored(anchor)
    return Span(
        span_id=_invocation_span_id(session_id, call.invocation_id),
        parent_span_id=_session_span_id(session_id),
        name=f"execute_tool {call.tool_name}",
        start=start,
        end=max(start, ended if ended is not None else observed_at),
        attributes=attributes,
        error=(said or error) if error is not None else None,
    )


def _anchored(anchor: datetime | None) -> datetime:
    if anchor is None:
        raise ValueError("a session whose times were never recorded needs an anchor")
    return anchor


def usage_attributes(
    model: str | None, input: int, output: int, cache_read: int, cache_write: int
) -> dict[str, AttributeValue]:
    """Tokens as the GenAI conventions name them: ``input_tokens`` are every prompt token
    (read from a cache or not), ``cache_read`` and ``cache_creation`` those of a cache, and
    the model where one is known.

    >>> usage_attributes("m", 3, 5, 7, 0)["gen_ai.usage.input_tokens"]
    10
    """
    said: dict[str, AttributeValue] = {
        "gen_ai.usage.input_tokens": input + cache_read + cache_write,
        "gen_ai.usage.output_tokens": output,
        "gen_ai.usage.cache_read.input_tokens": cache_read,
        "gen_ai.usage.cache_creation.input_tokens": cache_write,
    }
    if model:
        said["gen_ai.request.model"] = model
    return said


def session_spans(
    session_id: str,
    calls: Iterable[Call],
    observed_at: datetime,
    extra: Callable[[Call], Mapping[str, AttributeValue]] | None = None,
    *,
    times_recorded: bool = True,
    anchor: datetime | None = None,
    session_extra: Mapping[str, AttributeValue] | None = None,
) -> Iterator[Span]:
    """A span per call of ``calls`` (the session as it was at ``observed_at``), in their
    order, then the session's span, which covers them all and carries ``session_extra``
    (``times_recorded`` false: the session's times are stand-ins, and every span is at
    ``anchor``, with no duration).

    >>> from datetime import UTC
    >>> (root,) = session_spans("s", [], datetime(2026, 1, 1, tzinfo=UTC))
    >>> root.name, root.parent_span_id, root.attributes["correx.invocations"]
    ('session s', None, 0)
    """
    start: datetime | None = None
    end: datetime | None = None
    count = 0
    for call in calls:
        span = invocation_span(
            session_id,
            call,
            observed_at,
            None if extra is None else extra(call),
            times_recorded=times_recorded,
            anchor=anchor,
        )
        start = span.start if start is None else min(start, span.start)
        end = span.end if end is None else max(end, span.end)
        count += 1
        yield span
    if not times_recorded:
        start = end = observed_at = _anchored(anchor)
    first = observed_at if start is None else start
    attributes: dict[str, AttributeValue] = {
        "gen_ai.conversation.id": session_id,
        "correx.invocations": count,
        **(session_extra or {}),
    }
    if not times_recorded:
        attributes[TIMES_RECORDED] = False
    yield Span(
        span_id=_session_span_id(session_id),
        parent_span_id=None,
        name=f"session {session_id}",
        start=first,
        end=max(observed_at if end is None else end, observed_at, first),
        attributes=attributes,
        error=None,
    )


@lru_cache(maxsize=16)
def _session_span_id(session_id: str) -> bytes:
    return _digest("session", session_id)[:8]


def _invocation_span_id(session_id: str, invocation_id: str) -> bytes:
    """``_digest("invocation", session_id, invocation_id)[:8]``, the session's part hashed
    once (a session has a third of a million calls)."""
    hasher = _invocation_hasher(session_id).copy()
    hasher.update(invocation_id.encode("utf-8"))
    digest: bytes = hasher.digest()
    return digest[:8]


@lru_cache(maxsize=16)
def _invocation_hasher(session_id: str) -> Any:
    return hashlib.sha256("\x00".join(("correx-tools", "invocation", session_id, "")).encode())


def _digest(kind: str, *parts: str) -> bytes:
    """A stable digest of ``parts`` for ids of ``kind``; the ``\\x00`` keeps parts apart."""
    text = "\x00".join(("correx-tools", kind, *parts))
    return hashlib.sha256(text.encode("utf-8")).digest()
