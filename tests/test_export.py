"""``correx-tools export --to otlp-json``: a session as OTLP/JSON Lines.

Every line is parsed back with OpenTelemetry's own protobuf definitions
(``opentelemetry-proto``) as an ``ExportTraceServiceRequest``, after undoing
the one thing OTLP/JSON does differently from protobuf's JSON mapping
(hexadecimal ids), and held equal to the message built with those definitions
from the same spans.
"""

from __future__ import annotations

import base64
import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from google.protobuf.json_format import ParseDict
from hypothesis import given, settings
from hypothesis import strategies as st
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.proto.common.v1 import common_pb2
from opentelemetry.proto.resource.v1 import resource_pb2
from opentelemetry.proto.trace.v1 import trace_pb2

from correx_tools import SQLiteEventStore, StoredEvent, ToolProjector, fold_events
from correx_tools._version import __version__
from correx_tools.core.replay.spans import Span, session_spans, trace_id_of
from correx_tools.shell.export.otlp import nanos, otlp_lines

from .commands import Ran, correx
from .strategies import (
    SECRET,
    completed,
    failed,
    rejected,
    requested,
    sessions,
    started,
    stored,
)

Request = trace_service_pb2.ExportTraceServiceRequest
# The execute_tool span's attributes named by the GenAI conventions (checked against the
# conventions' registry), and this library's own.
GEN_AI = {
    "gen_ai.operation.name",
    "gen_ai.tool.name",
    "gen_ai.tool.call.id",
    "gen_ai.tool.type",
    "gen_ai.conversation.id",
}
OWN = {"correx.invocation.status", "correx.tier"}


def run(*args: str) -> Ran:
    return correx("export", *args)


def export(*args: str) -> str:
    done = run(*args)
    assert done.returncode == 0, done.stderr
    return done.stdout


def parsed_line(line: str) -> Any:
    """One line as the protobuf message it must be (ids hexadecimal, as OTLP says)."""
    document: dict[str, Any] = json.loads(line)
    for resource in document["resourceSpans"]:
        for scope in resource["scopeSpans"]:
            for span in scope["spans"]:
                for field in ("traceId", "spanId", "parentSpanId"):
                    if field in span:
                        assert len(span[field]) in (16, 32), span[field]
                        span[field] = base64.b64encode(bytes.fromhex(span[field])).decode()
    return ParseDict(document, Request())


def parsed(text: str) -> list[Any]:
    """Every line of an export, parsed; each must be one whole request."""
    lines = text.splitlines()
    assert lines and all(line.strip() for line in lines)
    return [parsed_line(line) for line in lines]


def all_spans(text: str) -> list[Any]:
    return [
        span
        for request in parsed(text)
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]


def attributes(span: Any) -> dict[str, Any]:
    values: dict[str, Any] = {}
    for pair in span.attributes:
        kind = pair.value.WhichOneof("value")
        values[pair.key] = getattr(pair.value, kind)
    return values


def session_file(path: Path) -> Path:
    events = stored(
        [
            requested("a", tool="read_file"),
            started("a"),
            completed("a"),
            requested("b", tool="shell"),
            started("b"),
            failed("b", reason="exit 2"),
            requested("c", tool="shell"),
            rejected("c", reason="denied by policy"),
            requested("d", tool="web_fetch"),
            started("d"),
        ],
        times=[0, 1, 4, 5, 6, 9, 10, 11, 12, 13],
    )
    with SQLiteEventStore(path) as store:
        store.import_events(events).unwrap()
    return path


def reference(trace_id: bytes, spans: list[Span]) -> Any:
    """The request built with opentelemetry-proto itself, from the same spans."""

    def value(item: object) -> Any:
        if isinstance(item, bool):
            return common_pb2.AnyValue(bool_value=item)
        if isinstance(item, int):
            return common_pb2.AnyValue(int_value=item)
        if isinstance(item, float):
            return common_pb2.AnyValue(double_value=item)
        return common_pb2.AnyValue(string_value=str(item))

    def pairs(values: dict[str, Any]) -> list[Any]:
        return [common_pb2.KeyValue(key=key, value=value(item)) for key, item in values.items()]

    return Request(
        resource_spans=[
            trace_pb2.ResourceSpans(
                resource=resource_pb2.Resource(attributes=pairs({"service.name": "correx-tools"})),
                scope_spans=[
                    trace_pb2.ScopeSpans(
                        scope=common_pb2.InstrumentationScope(
                            name="correx_tools", version=__version__
                        ),
                        spans=[
                            trace_pb2.Span(
                                trace_id=trace_id,
                                span_id=span.span_id,
                                parent_span_id=span.parent_span_id or b"",
                                name=span.name,
                                kind=trace_pb2.Span.SPAN_KIND_INTERNAL,
                                start_time_unix_nano=nanos(span.start),
                                end_time_unix_nano=nanos(span.end),
                                attributes=pairs(span.attributes),
                                status=trace_pb2.Status(
                                    code=trace_pb2.Status.STATUS_CODE_ERROR, message=span.error
                                )
                                if span.error is not None
                                else trace_pb2.Status(),
                            )
                            for span in spans
                        ],
                    )
                ],
            )
        ]
    )


@settings(max_examples=60, deadline=None)
@given(sessions(max_size=40, clock_skew=True), st.integers(1, 5))
def test_every_line_is_the_request_protobuf_builds_from_the_same_spans(
    events: list[StoredEvent], per_line: int
) -> None:
    state = fold_events(ToolProjector(), events, strict=False).unwrap().state
    observed = events[-1].recorded_at if events else datetime(2026, 1, 1, tzinfo=UTC)
    spans = list(session_spans("s", state.records(), observed))
    lines = list(otlp_lines(trace_id_of("s"), iter(spans), per_line))
    assert len(lines) == -(-len(spans) // per_line)
    for number, line in enumerate(lines):
        chunk = spans[number * per_line : (number + 1) * per_line]
        assert parsed_line(line) == reference(trace_id_of("s"), chunk)
    assert spans[-1].attributes["correx.invocations"] == len(spans) - 1


def test_each_call_is_an_execute_tool_span_under_the_session(tmp_path: Path) -> None:
    path = session_file(tmp_path / "s.sqlite")
    *calls, root = all_spans(export(str(path), "session-1"))
    assert root.name == "session session-1" and not root.parent_span_id
    assert [span.name for span in calls] == [
        "execute_tool read_file",
        "execute_tool shell",
        "execute_tool shell",
        "execute_tool web_fetch",
    ]
    assert {span.trace_id for span in calls} == {root.trace_id}
    assert all(span.parent_span_id == root.span_id for span in calls)
    assert all(span.kind == trace_pb2.Span.SPAN_KIND_INTERNAL for span in calls)
    by_id = {attributes(span)["gen_ai.tool.call.id"]: span for span in calls}
    for span in calls:
        named = attributes(span)
        assert named["gen_ai.operation.name"] == "execute_tool"
        assert named["gen_ai.conversation.id"] == "session-1"
        assert named["gen_ai.tool.type"] == "function"
        assert set(named) <= GEN_AI | OWN | {"error.type"}
        assert not any("argument" in key or "result" in key for key in named)  # opt-in only
    second = 1_000_000_000
    assert by_id["a"].end_time_unix_nano - by_id["a"].start_time_unix_nano == 4 * second
    assert by_id["a"].status.code == trace_pb2.Status.STATUS_CODE_UNSET
    assert by_id["b"].status.code == trace_pb2.Status.STATUS_CODE_ERROR
    assert by_id["b"].status.message == "exit 2"
    assert attributes(by_id["b"])["error.type"] == "tool_failed"
    assert attributes(by_id["c"])["error.type"] == "tool_rejected"
    # Still running: the span ends where the session was observed, its last event.
    assert attributes(by_id["d"])["correx.invocation.status"] == "started"
    assert by_id["d"].end_time_unix_nano - by_id["d"].start_time_unix_nano == 1 * second
    assert root.end_time_unix_nano == by_id["d"].end_time_unix_nano
    assert attributes(root)["correx.invocations"] == 4


def test_exporting_twice_or_from_another_store_gives_the_same_lines(tmp_path: Path) -> None:
    path = session_file(tmp_path / "s.sqlite")
    log = tmp_path / "s.jsonl"
    correx("import", str(path), str(log), check=True)
    first = export(str(path), "session-1", "-o", "-")
    assert export(str(path), "session-1") == first
    assert export(str(log), "session-1") == first
    earlier = all_spans(export(str(path), "session-1", "--at", "3"))
    assert len(earlier) == 2  # the one call requested by then, and the session


def test_a_large_session_is_many_lines_of_at_most_a_thousand_spans(tmp_path: Path) -> None:
    path = tmp_path / "big.sqlite"
    with SQLiteEventStore(path) as store:
        store.import_events(
            stored(
                [event for n in range(2_500) for event in (requested(f"c{n}"), started(f"c{n}"))]
            )
        ).unwrap()
    requests = parsed(export(str(path), "session-1"))
    sizes = [len(request.resource_spans[0].scope_spans[0].spans) for request in requests]
    assert sizes == [1_000, 1_000, 501]


def test_o_file_says_what_it_wrote_and_a_bad_destination_is_one_line(tmp_path: Path) -> None:
    path = session_file(tmp_path / "s.sqlite")
    written = tmp_path / "trace.jsonl"
    done = run(str(path), "session-1", "-o", str(written))
    assert done.returncode == 0, done.stderr
    size = written.stat().st_size
    assert done.stdout == f"wrote {written} (5 spans, {size / 1e3:.1f} KB)\n"
    assert len(all_spans(written.read_text())) == 5
    for target in (tmp_path / "missing" / "trace.jsonl", tmp_path):
        refused = run(str(path), "session-1", "-o", str(target))
        assert refused.returncode == 1
        assert refused.stderr.count("\n") == 1 and str(target) in refused.stderr
        assert "Traceback" not in refused.stderr
    left = [p.name for p in tmp_path.iterdir() if not p.name.startswith("s.sqlite")]
    assert left == ["trace.jsonl"]  # and no partial file


def test_with_content_adds_arguments_and_results_masked(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    events = stored(
        [
            requested("a", tool="shell", command=f"curl -H 'Authorization: Bearer {SECRET}'"),
            started("a"),
            completed("a", output={"token": "ACME-123456", "lines": 3}),
            requested("b", tool="shell", command="ls"),
            started("b"),
            failed("b", reason="exit 2"),
        ]
    )
    with SQLiteEventStore(path) as store:
        store.import_events(events).unwrap()
    plain = export(str(path), "session-1")
    assert SECRET not in plain and "curl" not in plain
    text = export(str(path), "session-1", "--with-content", "--redact", "ACME-[0-9]+")
    assert SECRET not in text and "ACME-123456" not in text
    by_id = {
        attributes(span).get("gen_ai.tool.call.id"): attributes(span) for span in all_spans(text)
    }
    assert json.loads(by_id["a"]["gen_ai.tool.call.arguments"])["command"].startswith("curl -H")
    assert json.loads(by_id["a"]["gen_ai.tool.call.result"]) == {"token": "[REDACTED]", "lines": 3}
    assert json.loads(by_id["b"]["gen_ai.tool.call.arguments"]) == {"command": "ls"}
    assert "gen_ai.tool.call.result" not in by_id["b"]  # a result only where the call succeeded
    refused = run(str(path), "session-1", "--redact", "x")
    assert refused.returncode == 1 and "--with-content" in refused.stderr
