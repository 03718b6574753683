"""A session's trace as OTLP/JSON, built with OpenTelemetry's own protobuf definitions.

The messages are built from ``opentelemetry-proto`` (the ``otel`` extra) and
written with protobuf's JSON mapping, with the two changes OTLP/JSON makes to
it: trace and span ids are hexadecimal rather than base64, and enums are
written as integers.
"""

from __future__ import annotations

import base64
from datetime import datetime
from typing import Any

from ..._version import __version__
from ...core.replay.spans import AttributeValue, SessionTrace, Span

_ID_FIELDS = ("traceId", "spanId", "parentSpanId")


class OtelMissing(Exception):
    """The OpenTelemetry protobuf definitions are not installed."""


def otlp_json(trace: SessionTrace) -> dict[str, Any]:
    """``trace`` as an OTLP/JSON ``TracesData`` document (a ``dict`` ready for ``json.dumps``)."""
    try:
        from google.protobuf.json_format import MessageToDict  # noqa: PLC0415
        from opentelemetry.proto.common.v1 import common_pb2  # noqa: PLC0415
        from opentelemetry.proto.resource.v1 import resource_pb2  # noqa: PLC0415
        from opentelemetry.proto.trace.v1 import trace_pb2  # noqa: PLC0415
    except ImportError as missing:  # an optional dependency: say which extra brings it
        raise OtelMissing(
            "exporting to OTLP needs OpenTelemetry's protobuf definitions: "
            "pip install 'correx-tools[otel]'"
        ) from missing

    def attributes(values: dict[str, AttributeValue]) -> list[Any]:
        pairs = []
        for key, value in values.items():
            if isinstance(value, bool):
                any_value = common_pb2.AnyValue(bool_value=value)
            elif isinstance(value, int):
                any_value = common_pb2.AnyValue(int_value=value)
            elif isinstance(value, float):
                any_value = common_pb2.AnyValue(double_value=value)
            else:
                any_value = common_pb2.AnyValue(string_value=value)
            pairs.append(common_pb2.KeyValue(key=key, value=any_value))
        return pairs

    def span(item: Span) -> Any:
        status = (
            trace_pb2.Status(code=trace_pb2.Status.STATUS_CODE_ERROR, message=item.error)
            if item.error is not None
            else trace_pb2.Status(code=trace_pb2.Status.STATUS_CODE_UNSET)
        )
        return trace_pb2.Span(
            trace_id=trace.trace_id,
            span_id=item.span_id,
            parent_span_id=item.parent_span_id or b"",
            name=item.name,
            kind=trace_pb2.Span.SPAN_KIND_INTERNAL,
            start_time_unix_nano=nanos(item.start),
            end_time_unix_nano=nanos(item.end),
            attributes=attributes(item.attributes),
            status=status,
        )

    data = trace_pb2.TracesData(
        resource_spans=[
            trace_pb2.ResourceSpans(
                resource=resource_pb2.Resource(
                    attributes=attributes({"service.name": "correx-tools"})
                ),
                scope_spans=[
                    trace_pb2.ScopeSpans(
                        scope=common_pb2.InstrumentationScope(
                            name="correx_tools", version=__version__
                        ),
                        spans=[span(trace.session), *map(span, trace.invocations)],
                    )
                ],
            )
        ]
    )
    document: dict[str, Any] = MessageToDict(data, use_integers_for_enums=True)
    for scope in document["resourceSpans"][0]["scopeSpans"]:
        for written in scope["spans"]:
            for field in _ID_FIELDS:
                if field in written:
                    written[field] = base64.b64decode(written[field]).hex()
    return document


def nanos(moment: datetime) -> int:
    """``moment`` in nanoseconds since the Unix epoch, exactly (no float on the way)."""
    delta = moment - datetime(1970, 1, 1, tzinfo=moment.tzinfo)
    return (delta.days * 86_400 + delta.seconds) * 1_000_000_000 + delta.microseconds * 1_000
