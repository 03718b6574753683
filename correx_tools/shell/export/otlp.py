"""A session's trace as OTLP/JSON Lines: one ``ExportTraceServiceRequest`` a line.

This is the format of OpenTelemetry's file exporter: each line is a whole
OTLP/JSON export request of at most `LINE_SPANS` spans, so a reader takes the
file line by line and a writer never holds more than a line. A line is
protobuf's JSON mapping of ``opentelemetry.proto.collector.trace.v1
.ExportTraceServiceRequest`` with the two changes OTLP/JSON makes to it: trace
and span ids are hexadecimal rather than base64, and enums are integers
(64-bit integers are strings, as the mapping writes them).

The lines are written here from the spans rather than built as protobuf
messages and converted with ``json_format``, which takes about 60 µs a span
(twenty seconds for the third of a million spans of a million-event session);
the tests parse every line with ``opentelemetry-proto`` and hold it equal to
the message built with it from the same spans.
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterable, Iterator, Mapping
from datetime import UTC, datetime, timedelta
from json.encoder import encode_basestring

from ..._version import __version__
from ...core.replay.spans import AttributeValue, Span

LINE_SPANS = 1_000
"""Spans per line (the SDK's batches are 512; a collector takes a few thousand)."""

SERVICE_NAME = "correx-tools"
SCOPE_NAME = "correx_tools"

_KIND_INTERNAL = 1
_STATUS_ERROR = 2
_dumps = json.JSONEncoder(ensure_ascii=False, separators=(",", ":")).encode


class OtelMissing(Exception):
    """An optional OpenTelemetry package is not installed (the ``otel`` extra)."""


def otlp_lines(trace_id: bytes, spans: Iterable[Span], per_line: int = LINE_SPANS) -> Iterator[str]:
    """Each line (without its newline) of ``spans`` of the trace ``trace_id``, ``per_line``
    spans a line, as the spans come."""
    head = (
        '{"resourceSpans":[{"resource":{"attributes":'
        + attributes_json({"service.name": SERVICE_NAME})
        + '},"scopeSpans":[{"scope":'
        + _dumps({"name": SCOPE_NAME, "version": __version__})
        + ',"spans":['
    )
    tail = "]}]}]}"
    trace = trace_id.hex()
    batch: list[str] = []
    for span in spans:
        batch.append(span_json(trace, span))
        if len(batch) == per_line:
            yield head + ",".join(batch) + tail
            batch = []
    if batch:
        yield head + ",".join(batch) + tail


def span_json(trace_hex: str, span: Span) -> str:
    """One span as OTLP/JSON text (fields at their default left out, as the mapping does).

    Written as text, each string escaped by ``json``'s own encoder: the span is the
    same object ``json.dumps`` would write, in a third of the time.
    """
    parent = span.parent_span_id
    return (
        f'{{"traceId":"{trace_hex}","spanId":"{span.span_id.hex()}",'
        + (f'"parentSpanId":"{parent.hex()}",' if parent else "")
        + f'"name":{_string(span.name)},"kind":{_KIND_INTERNAL},'
        f'"startTimeUnixNano":"{nanos(span.start)}","endTimeUnixNano":"{nanos(span.end)}",'
        f'"attributes":{attributes_json(span.attributes)},"status":'
        + (
            "{}"
            if span.error is None
            else f'{{"message":{_string(span.error)},"code":{_STATUS_ERROR}}}'
        )
        + "}"
    )


def attributes_json(values: Mapping[str, AttributeValue]) -> str:
    """OTLP ``KeyValue``s as JSON text: each value as the ``AnyValue`` of its type."""
    return "[" + ",".join(map(_pair, values.keys(), values.values())) + "]"


def _pair(key: str, value: AttributeValue) -> str:
    # Most pairs repeat on every span of a session (the operation, a tool, a status): each
    # is written once. The cache stops growing when full: ids, which never repeat, fill it
    # only after every repeating pair of the first spans is in.
    # (Only text is kept: True, 1 and 1.0 are equal keys, and are written differently.)
    if type(value) is not str:
        return f'{{"key":{_string(key)},"value":{_any_value(value)}}}'
    pair = (key, value)
    known = _PAIRS.get(pair)
    if known is None:
        known = f'{{"key":{_string(key)},"value":{{"stringValue":{_string(value)}}}}}'
        if len(_PAIRS) < 4_096:
            _PAIRS[pair] = known
    return known


_PAIRS: dict[tuple[str, str], str] = {}


def _any_value(value: AttributeValue) -> str:
    if isinstance(value, str):
        return f'{{"stringValue":{_string(value)}}}'
    if isinstance(value, bool):
        return f'{{"boolValue":{"true" if value else "false"}}}'
    if isinstance(value, int):
        return f'{{"intValue":"{value}"}}'
    # The JSON mapping spells the values JSON has no number for as strings.
    number = _dumps(value) if math.isfinite(value) else _dumps(_NOT_FINITE[str(value)])
    return f'{{"doubleValue":{number}}}'


_NOT_FINITE = {"nan": "NaN", "inf": "Infinity", "-inf": "-Infinity"}
_string = encode_basestring


def nanos(moment: datetime) -> int:
    """``moment`` (aware, as every stored time is) in nanoseconds since the Unix epoch,
    exactly (no float on the way)."""
    return (moment - _EPOCH) // _MICROSECOND * 1_000


_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)
_MICROSECOND = timedelta(microseconds=1)
