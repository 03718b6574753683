"""A session's trace sent through the OpenTelemetry SDK: to a collector, or any exporter.

The spans are built as the SDK's own finished spans (``ReadableSpan``) with the
ids and times of `session_spans <correx_tools.core.replay.spans.session_spans>`,
then handed to a ``SpanExporter`` a batch at a time as they come: the SDK's
OTLP/HTTP exporter for ``correx-tools export --to otlp``, or whichever
exporter a program passes (its in-memory one in the tests). The SDK and its
exporter come with the ``otel`` extra.
"""

from __future__ import annotations

import os
import threading
from collections.abc import Callable, Iterable
from typing import Any, TypeVar

from ..._version import __version__
from ...core.replay.spans import Span
from .otlp import SCOPE_NAME, SERVICE_NAME, OtelMissing, nanos

T = TypeVar("T")

BATCH = 512
"""Spans per export: the SDK's own batch processor's default."""

DEFAULT_ENDPOINT = "http://localhost:4318/v1/traces"
"""Where OpenTelemetry sends traces when nothing names another place."""

TRACES_ENDPOINT = "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT"
ENDPOINT = "OTEL_EXPORTER_OTLP_ENDPOINT"


def send(
    trace_id: bytes,
    spans: Iterable[Span],
    exporter: Any,
    batch: int = BATCH,
    *,
    deadline: float | None = None,
) -> int:
    """Hand ``spans`` of the trace ``trace_id`` to ``exporter`` (a ``SpanExporter``) ``batch``
    at a time as they come, then shut it down; how many were sent. An ``OSError`` if it
    reports a failure, or if a batch is not taken within ``deadline`` seconds (whatever
    the exporter's own timeouts, which bound each read, not the whole request)."""
    try:
        from opentelemetry.sdk.trace.export import SpanExportResult  # noqa: PLC0415
    except ImportError as missing:
        raise OtelMissing(
            "sending to a collector needs the OpenTelemetry SDK: pip install 'correx-tools[otel]'"
        ) from missing
    build = _builder(trace_id)
    sent = 0
    chunk: list[Any] = []

    def flush() -> None:
        nonlocal sent, chunk
        which = f"spans {sent + 1:,}..{sent + len(chunk):,}"
        delivered = f"; {sent:,} delivered before" if sent else ""
        result = within(lambda: exporter.export(chunk), deadline)
        if result is None:
            raise OSError(f"{which} were not taken within {deadline:g} s{delivered}")
        if result is not SpanExportResult.SUCCESS:
            raise OSError(f"{which} were not delivered (the exporter gave up){delivered}")
        sent += len(chunk)
        chunk = []

    try:
        for span in spans:
            chunk.append(build(span))
            if len(chunk) == batch:
                flush()
        if chunk:
            flush()
    finally:
        exporter.shutdown()
    return sent


def within(call: Callable[[], T], seconds: float | None) -> T | None:
    """``call()``'s result, or ``None`` when it has not returned within ``seconds`` (it is
    left to finish in a thread of its own, which does not keep the process alive)."""
    if seconds is None:
        return call()
    results: list[T] = []
    errors: list[BaseException] = []

    def run() -> None:
        try:
            results.append(call())
        except BaseException as error:  # raised again in the caller's thread
            errors.append(error)

    worker = threading.Thread(target=run, name="correx-export", daemon=True)
    worker.start()
    worker.join(seconds)
    if errors:
        raise errors[0]
    return results[0] if results else None


def _builder(trace_id: bytes) -> Any:
    """A function from our `Span` to the SDK's ``ReadableSpan`` in trace ``trace_id``."""
    from opentelemetry.sdk.resources import Resource  # noqa: PLC0415
    from opentelemetry.sdk.trace import ReadableSpan  # noqa: PLC0415
    from opentelemetry.sdk.util.instrumentation import InstrumentationScope  # noqa: PLC0415
    from opentelemetry.trace import SpanContext, SpanKind, TraceFlags  # noqa: PLC0415
    from opentelemetry.trace.status import Status, StatusCode  # noqa: PLC0415

    trace = int.from_bytes(trace_id, "big")
    resource = Resource.create({"service.name": SERVICE_NAME})
    scope = InstrumentationScope(SCOPE_NAME, __version__)
    unset = Status(StatusCode.UNSET)

    def context(span_id: bytes) -> Any:
        return SpanContext(
            trace, int.from_bytes(span_id, "big"), is_remote=False, trace_flags=TraceFlags(1)
        )

    def built(item: Span) -> Any:
        return ReadableSpan(
            name=item.name,
            context=context(item.span_id),
            parent=None if item.parent_span_id is None else context(item.parent_span_id),
            resource=resource,
            attributes=dict(item.attributes),
            kind=SpanKind.INTERNAL,
            status=unset if item.error is None else Status(StatusCode.ERROR, item.error),
            start_time=nanos(item.start),
            end_time=nanos(item.end),
            instrumentation_scope=scope,
        )

    return built


def traces_endpoint(named: str | None) -> tuple[str, str | None]:
    """The traces URL to send to, and what named it (``None``: nobody did, so it is the
    OpenTelemetry default): ``named`` (``--endpoint``), else the environment's
    ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT``, else ``OTEL_EXPORTER_OTLP_ENDPOINT`` with
    ``/v1/traces`` added, as the SDK reads them."""
    if named:
        return named, "--endpoint"
    if traces := os.environ.get(TRACES_ENDPOINT):
        return traces, TRACES_ENDPOINT
    if base := os.environ.get(ENDPOINT):
        return f"{base.removesuffix('/')}/v1/traces", ENDPOINT
    return DEFAULT_ENDPOINT, None


def otlp_http_exporter(endpoint: str, timeout: float) -> Any:
    """The SDK's OTLP/HTTP (protobuf) span exporter for the traces URL ``endpoint``."""
    try:
        from opentelemetry.exporter.otlp.proto.http.trace_exporter import (  # noqa: PLC0415
            OTLPSpanExporter,
        )
    except ImportError as missing:
        raise OtelMissing(
            "sending to a collector needs OpenTelemetry's OTLP exporter: "
            "pip install 'correx-tools[otel]'"
        ) from missing
    return OTLPSpanExporter(endpoint=endpoint, timeout=timeout)
