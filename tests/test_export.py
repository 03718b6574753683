"""``correx-tools export --to otlp-json``: a session as OpenTelemetry trace data.

The output is parsed back with OpenTelemetry's own protobuf definitions
(``opentelemetry-proto``), after undoing the one thing OTLP/JSON does
differently from protobuf's JSON mapping (hexadecimal ids).
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

from google.protobuf.json_format import ParseDict
from opentelemetry.proto.trace.v1 import trace_pb2

from correx_tools import SQLiteEventStore, ToolProjector, fold_events
from correx_tools.core.replay.spans import session_trace

from .strategies import completed, failed, rejected, requested, started, stored


def export(*args: str) -> str:
    done = subprocess.run(
        [sys.executable, "-m", "correx_tools", "export", *args],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def parsed(text: str) -> trace_pb2.TracesData:
    document: dict[str, Any] = json.loads(text)
    for scope in document["resourceSpans"][0]["scopeSpans"]:
        for span in scope["spans"]:
            for field in ("traceId", "spanId", "parentSpanId"):
                if field in span:
                    assert len(span[field]) in (16, 32), span[field]  # hexadecimal, as OTLP says
                    span[field] = base64.b64encode(bytes.fromhex(span[field])).decode()
    return ParseDict(document, trace_pb2.TracesData())


def attributes(span: trace_pb2.Span) -> dict[str, Any]:
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


def test_each_call_is_an_execute_tool_span_under_the_session(tmp_path: Path) -> None:
    path = session_file(tmp_path / "s.sqlite")
    text = export(str(path), "session-1")
    data = parsed(text)
    (spans,) = [scope.spans for scope in data.resource_spans[0].scope_spans]
    root, *calls = spans
    assert root.name == "session session-1" and not root.parent_span_id
    assert [span.name for span in calls] == [
        "execute_tool read_file",
        "execute_tool shell",
        "execute_tool shell",
        "execute_tool web_fetch",
    ]
    assert {span.trace_id for span in spans} == {root.trace_id}
    assert all(span.parent_span_id == root.span_id for span in calls)
    by_id = {attributes(span)["gen_ai.tool.call.id"]: span for span in calls}
    for span in calls:
        assert attributes(span)["gen_ai.operation.name"] == "execute_tool"
        assert attributes(span)["gen_ai.conversation.id"] == "session-1"
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


def test_exporting_twice_or_from_another_store_gives_the_same_trace(tmp_path: Path) -> None:
    path = session_file(tmp_path / "s.sqlite")
    log = tmp_path / "s.jsonl"
    subprocess.run(
        [sys.executable, "-m", "correx_tools", "import", str(path), str(log)],
        check=True,
        capture_output=True,
    )
    first = export(str(path), "session-1", "-o", "-")
    assert export(str(path), "session-1") == first
    assert export(str(log), "session-1") == first
    earlier = parsed(export(str(path), "session-1", "--at", "3"))
    (spans,) = [scope.spans for scope in earlier.resource_spans[0].scope_spans]
    assert len(spans) == 2  # the session and the one call requested by then


def test_an_output_file_that_cannot_be_written_is_one_clear_line(tmp_path: Path) -> None:
    path = session_file(tmp_path / "s.sqlite")
    target = str(tmp_path / "missing" / "trace.json")
    done = subprocess.run(
        [sys.executable, "-m", "correx_tools", "export", str(path), "session-1", "-o", target],
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 1
    assert done.stderr.count("\n") == 1 and target in done.stderr
    assert "Traceback" not in done.stderr
    written = tmp_path / "trace.json"
    export(str(path), "session-1", "-o", str(written))
    assert parsed(written.read_text()).resource_spans


def test_ids_are_stable_and_distinct_per_session_and_invocation() -> None:
    events = stored([requested("a"), requested("b")])
    state = fold_events(ToolProjector(), events).unwrap().state
    at = events[-1].recorded_at
    one, again, other = (session_trace(s, state, at) for s in ("s1", "s1", "s2"))
    assert one == again
    assert one.trace_id != other.trace_id
    ids = {one.session.span_id, *(span.span_id for span in one.invocations)}
    assert len(ids) == 3
