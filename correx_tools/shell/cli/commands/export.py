"""``correx-tools export``: a session as OpenTelemetry trace data, streamed.

``--to otlp-json`` writes OTLP/JSON Lines (one export request of at most a
thousand spans a line) to stdout or, whole or not at all, to ``-o FILE``;
``--to otlp`` sends the same spans through the SDK's OTLP/HTTP exporter. The
session's invocations are read a page at a time and each span goes out as it
is made: nothing holds the whole session.
"""

from __future__ import annotations

import argparse
import json
import sys
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from ....core.lifecycle.record import ToolInvocationRecord
from ....core.lifecycle.status import ToolInvocationStatus
from ....core.replay.outline import InvocationOutline
from ....core.replay.spans import (
    EXIT_CODE,
    AttributeValue,
    Call,
    Span,
    session_spans,
    trace_id_of,
    usage_attributes,
)
from ....core.replay.spending import Spent
from ....core.replay.stored_index import record_at
from ....core.report.redaction import Redaction
from ....core.tools.json_values import thaw_json
from ...export.otel_sdk import traces_endpoint
from ...export.otlp import otlp_lines
from ...replay.spent import talked_if_any
from ...stores.port import EventStore
from ...transcripts.description import session_description
from .. import arguments
from ..errors import CliError
from ..output.collector import send_to_collector
from ..output.files import STANDARD_OUTPUT, output_argument, size_text, whole_file
from ..output.render import emit
from ..sources.loading import answered
from ..sources.streaming import Streamed, streamed_session

ARGUMENTS, RESULT = "gen_ai.tool.call.arguments", "gen_ai.tool.call.result"
UNKNOWN = datetime(1970, 1, 1, tzinfo=UTC)
"""Where the spans of a session that records no time at all are put: the time 0."""


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools export``; the exit status."""
    if args.to in ("parquet", "csv"):
        from .export_tables import run_tables  # noqa: PLC0415 - the tables' own path

        return run_tables(args)
    if args.session is None:
        raise CliError(f"--to {args.to} exports one session: give SESSION")
    if args.to == "otlp" and args.output is not None:
        raise CliError("--to otlp sends to a collector (--endpoint); -o is for --to otlp-json")
    if args.to == "otlp-json" and args.endpoint is not None:
        raise CliError("--endpoint is for --to otlp; --to otlp-json writes a file")
    try:
        redaction = Redaction.with_patterns(args.redact)
    except ValueError as error:
        raise CliError(str(error)) from None
    if args.redact and not args.with_content:
        raise CliError("--redact masks the arguments and results --with-content adds")
    with streamed_session(args) as streamed:
        spans = _spans(args, streamed, redaction)
        trace_id = trace_id_of(streamed.session)
        if args.to == "otlp":
            endpoint, named_by = traces_endpoint(args.endpoint)
            sent = send_to_collector(trace_id, spans, endpoint, named_by, args.timeout)
            emit(
                args,
                {"endpoint": endpoint, "spans": sent, "trace_id": trace_id.hex()},
                lambda: f"sent {sent:,} spans of trace {trace_id.hex()} to {endpoint}",
            )
            return 0
        if args.output is None or args.output == STANDARD_OUTPUT:
            for line in otlp_lines(trace_id, spans):
                sys.stdout.write(line + "\n")
            return 0
        _write(args, Path(args.output), trace_id, spans)
    return 0


def _write(args: argparse.Namespace, path: Path, trace_id: bytes, spans: Iterator[Span]) -> None:
    """The lines to ``path``, whole or not at all, and one line saying what was written."""
    counted = _Counted(spans)
    size = 0
    with whole_file(path) as out:
        for line in otlp_lines(trace_id, counted):
            data = (line + "\n").encode("utf-8")
            out.write(data)
            size += len(data)
    emit(
        args,
        {"path": str(path), "spans": counted.count, "bytes": size, "trace_id": trace_id.hex()},
        lambda: f"wrote {path} ({counted.count:,} spans, {size_text(size)})",
    )


class _Counted:
    """The spans, counted as they go by."""

    def __init__(self, spans: Iterator[Span]) -> None:
        self.spans = spans
        self.count = 0

    def __iter__(self) -> Iterator[Span]:
        for span in self.spans:
            self.count += 1
            yield span


def _spans(args: argparse.Namespace, streamed: Streamed, redaction: Redaction) -> Iterator[Span]:
    """The session's spans as they stood at ``--at``: its calls' outlines, or with
    ``--with-content`` their records, arguments and results added (redacted); each call's
    model and share of its message's tokens, and the session's in all, where recorded."""
    store, session, at, view = streamed
    observed_at = _observed_at(store, session, at)
    described = session_description(store, session)
    timed = described is None or described.times_recorded
    # A session whose transcript records no time is put at the moment it says it began, or,
    # saying none, at OpenTelemetry's "unknown", the time 0: no time is made up.
    anchor = (None if described is None else described.about.started_at) or UNKNOWN
    talk = talked_if_any(store, session, at, imported=described is not None)
    spent = {} if talk is None else talk.spending.calls
    total = None if talk is None else talk.spending.spent
    session_extra = {} if total is None else _usage(total)
    if not args.with_content:
        outlines = answered(view.outlines(at), session, lenient=args.lenient)

        def exited(call: Call) -> Mapping[str, AttributeValue]:
            outline: InvocationOutline = call  # type: ignore[assignment]  # outlines go in
            return {**_exit_code(outline.exit_code), **_call_usage(spent, call)}

        return session_spans(session, outlines, observed_at, exited, times_recorded=timed,
                             anchor=anchor, session_extra=session_extra)  # fmt: skip
    entries = answered(view.entries_through(at), session, lenient=args.lenient)
    records = (record for entry in entries if (record := record_at(entry, at)) is not None)

    def content(call: Call) -> Mapping[str, AttributeValue]:
        record: ToolInvocationRecord = call  # type: ignore[assignment]  # records go in
        added: dict[str, AttributeValue] = {
            ARGUMENTS: _json(redaction.value(thaw_json(record.request.arguments)))
        }
        if record.status is ToolInvocationStatus.COMPLETED and record.receipt is not None:
            added[RESULT] = _json(redaction.value(thaw_json(record.receipt.output)))
            added.update(_exit_code(record.receipt.exit_code))
        return {**added, **_call_usage(spent, call)}

    return session_spans(session, records, observed_at, content, times_recorded=timed,
                         anchor=anchor, session_extra=session_extra)  # fmt: skip


def _call_usage(spent: Mapping[str, Spent], call: Call) -> dict[str, AttributeValue]:
    share = spent.get(call.invocation_id)
    return {} if share is None else _usage(share)


def _usage(spent: Spent) -> dict[str, AttributeValue]:
    """Tokens as the conventions name them, and the model where it is the only one."""
    models = [model for model, _ in spent.by_model]
    total = spent.total
    model = models[0] if len(models) == 1 else None
    return usage_attributes(model, total.input, total.output, total.cache_read,
                            total.cache_write)  # fmt: skip


def _exit_code(code: int | None) -> dict[str, AttributeValue]:
    # Only a non-zero code is sure to be real: 0 also stands where none was recorded.
    return {EXIT_CODE: code} if code else {}


def _json(value: Any) -> str:
    # A JSON string, as the conventions allow where a structured value cannot go (the SDK's
    # span attributes take no maps), the same in the file and through the SDK.
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))


def _observed_at(store: EventStore, session: str, at: int) -> datetime:
    """When the trace is observed: the event it stops at (calls in flight end there)."""
    if at == 0:
        return datetime(1970, 1, 1, tzinfo=UTC)
    observed = next(iter(store.read(session, after=at - 1)), None)  # type: ignore[arg-type]
    return observed.recorded_at if observed is not None else datetime(1970, 1, 1, tzinfo=UTC)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools export``."""
    arguments.add_source(parser)
    parser.add_argument(
        "session", metavar="SESSION", nargs="?", help="the session (for otlp-json and otlp)"
    )
    parser.add_argument(
        "--to",
        choices=("otlp-json", "otlp", "parquet", "csv"),
        default="otlp-json",
        help="otlp-json: OTLP/JSON Lines, one export request of at most 1,000 spans a line, to "
        "-o FILE or stdout; otlp: send the spans to a collector through the OpenTelemetry "
        "SDK's OTLP/HTTP exporter; parquet, csv: every session of SOURCE (or those the "
        "filters pick) as tables sessions/ and calls/ in -o DIR, partitioned by day "
        "(default: %(default)s)",
    )
    parser.add_argument(
        "--events", action="store_true",
        help="with --to parquet or csv: every event too, as events/ (masked)",
    )  # fmt: skip
    parser.add_argument(
        "--endpoint",
        metavar="URL",
        help="with --to otlp: the collector's traces URL, such as "
        "http://localhost:4318/v1/traces (default: OTEL_EXPORTER_OTLP_TRACES_ENDPOINT, "
        "OTEL_EXPORTER_OTLP_ENDPOINT + /v1/traces, or OpenTelemetry's http://localhost:4318)",
    )
    parser.add_argument(
        "--timeout",
        type=_seconds,
        default=10.0,
        metavar="SECONDS",
        help="with --to otlp: how long to wait for the collector to take a batch "
        "(default: %(default)s); a collector that does not answer at all fails sooner",
    )
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        type=output_argument,
        help="write to FILE, whole or not at all (default, or -: standard output); with "
        "--to parquet or csv, the new folder of the tables",
    )
    parser.add_argument("--at", type=int, metavar="SEQ", help="the session as it was at SEQ")
    arguments.add_lenient_argument(parser)
    parser.add_argument(
        "--with-content",
        action="store_true",
        help=f"add each call's arguments ({ARGUMENTS}) and a completed call's result ({RESULT}) "
        "as JSON, masked and cut as the report does; off by default: they may hold secrets",
    )
    arguments.add_redact_argument(parser)
    arguments.add_session_filters(parser)
    arguments.add_prices_argument(parser)


def _seconds(text: str) -> float:
    """A time in seconds: a finite number above zero (argparse says so otherwise)."""
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of seconds") from None
    if not 0 < value < 86_400:  # NaN compares false too
        raise argparse.ArgumentTypeError(f"{text!r} is not between 0 and a day of seconds")
    return value
