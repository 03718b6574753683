"""``correx-tools export``: a session as OpenTelemetry trace data (OTLP/JSON)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from ...core.replay.spans import SessionTrace, session_trace
from ..export.otel_sdk import otlp_http_exporter, send
from ..export.otlp import OtelMissing, otlp_json
from .errors import CliError
from .loading import session_at
from .render import emit


def cmd_export(args: argparse.Namespace) -> int:
    store, session, at, state = session_at(args)
    # The trace is observed at the event it stops at: calls in flight end there.
    observed = next(iter(store.read(session, after=at - 1)), None) if at > 0 else None
    observed_at = observed.recorded_at if observed is not None else datetime(1970, 1, 1, tzinfo=UTC)
    trace = session_trace(session, state, observed_at)
    if args.to == "otlp":
        return _send(args, trace)
    if args.endpoint is not None:
        raise CliError("--endpoint is for --to otlp; --to otlp-json writes a file")
    try:
        document = otlp_json(trace)
    except OtelMissing as missing:
        raise CliError(str(missing)) from None
    text = json.dumps(document, ensure_ascii=False, indent=None if args.json else 2)
    if args.output is None or args.output == "-":
        sys.stdout.write(text + "\n")
    else:
        try:
            Path(args.output).write_text(text + "\n", encoding="utf-8")
        except OSError as error:
            raise CliError(f"{args.output}: {error.strerror or error}") from None
    return 0


def _send(args: argparse.Namespace, trace: SessionTrace) -> int:
    """``--to otlp``: the spans through the SDK's OTLP/HTTP exporter to a collector."""
    if args.output is not None:
        raise CliError("--to otlp sends to a collector (--endpoint); -o is for --to otlp-json")
    try:
        send(trace, otlp_http_exporter(args.endpoint, args.timeout))
    except OtelMissing as missing:
        raise CliError(str(missing)) from None
    except OSError as error:
        where = args.endpoint or "the OTLP endpoint the environment names"
        raise CliError(f"{where}: {error}") from None
    spans = 1 + len(trace.invocations)
    emit(
        args,
        {"endpoint": args.endpoint, "spans": spans, "trace_id": trace.trace_id.hex()},
        lambda: (
            f"sent {spans:,} spans of trace {trace.trace_id.hex()} to "
            f"{args.endpoint or 'the OTLP endpoint the environment names'}"
        ),
    )
    return 0


def add_export_arguments(parser: argparse.ArgumentParser, source_help: str) -> None:
    """The arguments of ``correx-tools export``."""
    parser.add_argument("source", metavar="SOURCE", help=source_help)
    parser.add_argument("session", metavar="SESSION")
    parser.add_argument(
        "--to",
        choices=("otlp-json", "otlp"),
        default="otlp-json",
        help="otlp-json: OTLP/JSON trace data to a file or stdout; otlp: send the spans to a "
        "collector through the OpenTelemetry SDK's OTLP/HTTP exporter (default: %(default)s)",
    )
    parser.add_argument(
        "--endpoint",
        metavar="URL",
        help="with --to otlp: the collector's traces URL, such as "
        "http://localhost:4318/v1/traces (default: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, "
        "OTEL_EXPORTER_OTLP_ENDPOINT, or the SDK's localhost default)",
    )
    parser.add_argument(
        "--timeout",
        type=float,
        default=10.0,
        metavar="SECONDS",
        help="with --to otlp: how long to wait for the collector (default: %(default)s)",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: stdout)")
    parser.add_argument("--at", type=int, metavar="SEQ", help="the session as it was at SEQ")
    parser.add_argument("--lenient", action="store_true", help="skip events the lifecycle refuses")
