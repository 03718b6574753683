"""``export --to otlp``: the trace through the OpenTelemetry SDK, to a real OTLP/HTTP endpoint.

The SDK's in-memory exporter checks the spans a program gets; a small HTTP
server on loopback stands in for a collector and parses what the command sends
with OpenTelemetry's own protobuf definitions.
"""

from __future__ import annotations

import http.server
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, ClassVar

import pytest
from opentelemetry.proto.collector.trace.v1 import trace_service_pb2
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace.status import StatusCode

from correx_tools import SQLiteEventStore, ToolProjector, fold_events
from correx_tools.core.replay.spans import session_spans, trace_id_of
from correx_tools.shell.export.otel_sdk import send

from .commands import Ran, correx
from .test_export import all_spans, export, session_file

OTEL_VARIABLES = ("OTEL_EXPORTER_OTLP_ENDPOINT", "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT")


def command(*args: str, **environment: str) -> Ran:
    unset: dict[str, str | None] = dict.fromkeys(OTEL_VARIABLES)
    return correx("export", *args, env={**unset, **environment})


def closed_port() -> int:
    """A loopback port nothing listens on (bound, then closed, so no one else took it)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


def test_the_sdk_gets_the_same_spans_as_the_otlp_json_file(tmp_path: Path) -> None:
    path = session_file(tmp_path / "s.sqlite")
    with SQLiteEventStore(path) as store:
        events = list(store.read(next(iter(store.sessions()))))
    replay = fold_events(ToolProjector(), events).unwrap()
    trace = session_spans("session-1", replay.state.records(), events[-1].recorded_at)
    exporter = InMemorySpanExporter()
    assert send(trace_id_of("session-1"), trace, exporter, batch=2) == 5
    spans = exporter.get_finished_spans()
    written = all_spans(export(str(path), "session-1"))
    assert [span.name for span in spans] == [span.name for span in written]
    for ours, file in zip(spans, written, strict=True):
        assert ours.context.trace_id.to_bytes(16, "big") == file.trace_id
        assert ours.context.span_id.to_bytes(8, "big") == file.span_id
        parent = ours.parent.span_id.to_bytes(8, "big") if ours.parent else b""
        assert parent == file.parent_span_id
        assert (ours.start_time, ours.end_time) == (
            file.start_time_unix_nano,
            file.end_time_unix_nano,
        )
        assert (ours.status.status_code is StatusCode.ERROR) == (file.status.code == 2)
        assert ours.attributes.get("gen_ai.tool.call.id") == next(
            (a.value.string_value for a in file.attributes if a.key == "gen_ai.tool.call.id"),
            None,
        )
    assert spans[0].resource.attributes["service.name"] == "correx-tools"


class Collector(http.server.BaseHTTPRequestHandler):
    """An OTLP/HTTP traces endpoint that keeps what it is sent."""

    received: ClassVar[list[trace_service_pb2.ExportTraceServiceRequest]] = []

    def do_POST(self) -> None:
        body = self.rfile.read(int(self.headers["Content-Length"]))
        request = trace_service_pb2.ExportTraceServiceRequest()
        request.ParseFromString(body)
        type(self).received.append(request)
        answer = trace_service_pb2.ExportTraceServiceResponse().SerializeToString()
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", str(len(answer)))
        self.end_headers()
        self.wfile.write(answer)

    def log_message(self, *args: Any) -> None:
        pass


@pytest.fixture
def collector() -> Iterator[str]:
    Collector.received = []
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Collector)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}/v1/traces"
    server.shutdown()
    server.server_close()


def test_the_command_sends_the_trace_to_a_collector(tmp_path: Path, collector: str) -> None:
    path = session_file(tmp_path / "s.sqlite")
    done = command(str(path), "session-1", "--to", "otlp", "--endpoint", collector)
    assert done.returncode == 0, done.stderr
    assert "sent 5 spans" in done.stdout
    received = [
        span
        for request in Collector.received
        for resource in request.resource_spans
        for scope in resource.scope_spans
        for span in scope.spans
    ]
    written = all_spans(export(str(path), "session-1"))
    assert [(s.name, s.span_id, s.parent_span_id) for s in received] == [
        (s.name, s.span_id, s.parent_span_id) for s in written
    ]


def test_the_environment_may_name_the_collector(tmp_path: Path, collector: str) -> None:
    path = session_file(tmp_path / "s.sqlite")
    base = collector.removesuffix("/v1/traces")
    done = command(str(path), "session-1", "--to", "otlp", OTEL_EXPORTER_OTLP_ENDPOINT=base)
    assert done.returncode == 0, done.stderr
    assert done.stdout == f"sent 5 spans of trace {trace_id_of('session-1').hex()} to {collector}\n"
    assert done.stderr == ""


def test_a_collector_that_is_not_there_fails_fast_in_a_few_lines(tmp_path: Path) -> None:
    path = session_file(tmp_path / "s.sqlite")
    endpoint = f"http://127.0.0.1:{closed_port()}/v1/traces"
    started = time.perf_counter()
    done = command(str(path), "session-1", "--to", "otlp", "--endpoint", endpoint)
    assert time.perf_counter() - started < 5
    assert done.returncode == 1 and "Traceback" not in done.stderr
    lines = done.stderr.splitlines()
    assert len(lines) <= 3
    assert lines[0].startswith(f"correx-tools export: error: {endpoint}: ")
    assert "--endpoint URL" in done.stderr and "OTEL_EXPORTER_OTLP_TRACES_ENDPOINT" in done.stderr
    assert "retry" not in done.stderr.lower() and "environment names" not in done.stderr
    again = command(
        str(path), "session-1", "--to", "otlp", OTEL_EXPORTER_OTLP_TRACES_ENDPOINT=endpoint
    )
    assert again.returncode == 1 and again.stderr.startswith(
        f"correx-tools export: error: {endpoint}"
    )


def test_no_endpoint_named_is_the_opentelemetry_default_and_says_so(tmp_path: Path) -> None:
    path = session_file(tmp_path / "s.sqlite")
    with socket.socket() as taken:
        try:
            taken.bind(("127.0.0.1", 4318))
        except OSError:
            pytest.skip("something listens on localhost:4318 here")
    started = time.perf_counter()
    done = command(str(path), "session-1", "--to", "otlp")
    assert time.perf_counter() - started < 5
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert len(lines) <= 3 and "Traceback" not in done.stderr
    assert "no endpoint named" in lines[0] and "http://localhost:4318/v1/traces" in lines[0]
    assert lines[1].startswith("correx-tools export: error: http://localhost:4318/v1/traces: ")
    assert "environment names" not in done.stderr


def test_options_for_the_other_target_are_refused(tmp_path: Path) -> None:
    path = session_file(tmp_path / "s.sqlite")
    out = command(str(path), "session-1", "--to", "otlp", "-o", str(tmp_path / "x.json"))
    assert out.returncode == 1 and "-o is for --to otlp-json" in out.stderr
    endpoint = command(str(path), "session-1", "--endpoint", "http://127.0.0.1:9/v1/traces")
    assert endpoint.returncode == 1 and "--endpoint is for --to otlp" in endpoint.stderr


class Unwelcoming(http.server.BaseHTTPRequestHandler):
    """A collector that refuses every request (401), or, after the first, answers a byte
    a second (``slow``): neither may keep the command longer than its --timeout."""

    protocol_version = "HTTP/1.1"
    slow = False
    seen = 0
    done = threading.Event()

    def do_POST(self) -> None:
        self.rfile.read(int(self.headers["Content-Length"]))
        type(self).seen += 1
        if not self.slow:
            self.send_response(401)
            self.send_header("Content-Length", "0")
            self.end_headers()
            return
        self.send_response(200)
        self.send_header("Content-Type", "application/x-protobuf")
        self.send_header("Content-Length", "0" if self.seen == 1 else "60")
        self.end_headers()
        try:
            for _ in range(0 if self.seen == 1 else 60):
                if self.done.wait(1):  # the test is over
                    return
                self.wfile.write(b"\0")
                self.wfile.flush()
        except (BrokenPipeError, ConnectionResetError):
            return  # the command gave up and closed the connection

    def log_message(self, *args: Any) -> None:
        pass


@pytest.mark.parametrize("slow", [False, True])
def test_a_collector_that_refuses_or_drips_is_named_within_the_timeout(
    tmp_path: Path, slow: bool
) -> None:
    Unwelcoming.slow, Unwelcoming.seen, Unwelcoming.done = slow, 0, threading.Event()
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Unwelcoming)
    # Closing the server stops the drip and waits for each request's thread: none outlives
    # the test (the command's export, given up on, reads in a thread of its own, and a
    # drip left running would print into a later test's standard error).
    server.daemon_threads = False
    threading.Thread(target=server.serve_forever, daemon=True).start()
    endpoint = f"http://127.0.0.1:{server.server_address[1]}/v1/traces"
    try:
        path = session_file(tmp_path / "s.sqlite")
        started = time.perf_counter()
        options = ["--to", "otlp", "--endpoint", endpoint, "--timeout", "2"]
        done = command(str(path), "session-1", *options)
        assert time.perf_counter() - started < 15  # the batch's whole request, bounded
        assert done.returncode == 1 and "Traceback" not in done.stderr
        if slow:
            assert "were not taken within 2 s" in done.stderr
        else:
            assert "401" in done.stderr  # the collector's own answer, not "no answer"
    finally:
        Unwelcoming.done.set()
        server.shutdown()
        server.server_close()


def test_a_timeout_that_is_no_time_is_refused(tmp_path: Path) -> None:
    path = session_file(tmp_path / "s.sqlite")
    for seconds in ("0", "-1", "nan", "inf"):
        done = command(str(path), "session-1", "--to", "otlp", "--timeout", seconds)
        assert done.returncode == 2 and "--timeout" in done.stderr, (seconds, done.stderr)
