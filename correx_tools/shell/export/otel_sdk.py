"""A session's trace sent through the OpenTelemetry SDK: to a collector, or any exporter.

The spans are built as the SDK's own finished spans (``ReadableSpan``) with the
ids and times of `session_trace`, then handed to a
``SpanExporter``: the SDK's OTLP/HTTP exporter for ``correx-tools export --to
otlp``, or whichever exporter a program passes (its in-memory one in the tests).
The SDK and its exporter come with the ``otel`` extra.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ..._version import __version__
from ...core.replay.spans import SessionTrace, Span
from .otlp import OtelMissing, nanos

SERVICE_NAME = "correx-tools"


def sdk_spans(trace: SessionTrace) -> list[Any]:
    """``trace`` as the SDK's finished spans (``opentelemetry.sdk.trace.ReadableSpan``),
    the session's first."""
    try:
        from opentelemetry.sdk.resources import Resource  # noqa: PLC0415
        from opentelemetry.sdk.trace import ReadableSpan  # noqa: PLC0415
        from opentelemetry.sdk.util.instrumentation import InstrumentationScope  # noqa: PLC0415
        from opentelemetry.trace import SpanContext, SpanKind, TraceFlags  # noqa: PLC0415
        from opentelemetry.trace.status import Status, StatusCode  # noqa: PLC0415
    except ImportError as missing:
        raise OtelMissing(
            "sending to a collector needs the OpenTelemetry SDK: pip install 'correx-tools[otel]'"
        ) from missing
    trace_id = int.from_bytes(trace.trace_id, "big")
    resource = Resource.create({"service.name": SERVICE_NAME})
    scope = InstrumentationScope("correx_tools", __version__)

    def context(span_id: bytes) -> Any:
        return SpanContext(
            trace_id, int.from_bytes(span_id, "big"), is_remote=False, trace_flags=TraceFlags(1)
        )

    def built(item: Span) -> Any:
        return ReadableSpan(
            name=item.name,
            context=context(item.span_id),
            parent=None if item.parent_span_id is None else context(item.parent_span_id),
            resource=resource,
            attributes=dict(item.attributes),
            kind=SpanKind.INTERNAL,
            status=Status(StatusCode.ERROR, item.error)
            if item.error is not None
            else Status(StatusCode.UNSET),
            start_time=nanos(item.start),
            end_time=nanos(item.end),
            instrumentation_scope=scope,
        )

    return [built(trace.session), *map(built, trace.invocations)]


def send(trace: SessionTrace, exporter: Any, batch: int = 512) -> None:
    """Hand ``trace``'s spans to ``exporter`` (a ``SpanExporter``) ``batch`` at a time; an
    ``OSError`` if it reports a failure."""
    from opentelemetry.sdk.trace.export import SpanExportResult  # noqa: PLC0415

    spans: Sequence[Any] = sdk_spans(trace)
    try:
        for start in range(0, len(spans), batch):
            chunk = spans[start : start + batch]
            if exporter.export(chunk) is not SpanExportResult.SUCCESS:
                raise OSError(
                    f"spans {start + 1}..{start + len(chunk)} of {len(spans)} were not delivered "
                    "(the exporter gave up)"
                )
    finally:
        exporter.shutdown()


def otlp_http_exporter(endpoint: str | None, timeout: float) -> Any:
    """The SDK's OTLP/HTTP (protobuf) span exporter for ``endpoint`` (``None``: the SDK's
    default, which reads ``OTEL_EXPORTER_OTLP_TRACES_ENDPOINT`` and
    ``OTEL_EXPORTER_OTLP_ENDPOINT``)."""
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
