"""``correx-tools export``: a session as OpenTelemetry trace data (OTLP/JSON)."""

from __future__ import annotations

import argparse
import json
import sys
from datetime import UTC, datetime
from pathlib import Path

from ...core.replay.spans import session_trace
from ..export.otlp import OtelMissing, otlp_json
from .errors import CliError
from .loading import session_at


def cmd_export(args: argparse.Namespace) -> int:
    store, session, at, state = session_at(args)
    # The trace is observed at the event it stops at: calls in flight end there.
    observed = next(iter(store.read(session, after=at - 1)), None) if at > 0 else None
    observed_at = observed.recorded_at if observed is not None else datetime(1970, 1, 1, tzinfo=UTC)
    try:
        document = otlp_json(session_trace(session, state, observed_at))
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


def add_export_arguments(parser: argparse.ArgumentParser, source_help: str) -> None:
    """The arguments of ``correx-tools export``."""
    parser.add_argument("source", metavar="SOURCE", help=source_help)
    parser.add_argument("session", metavar="SESSION")
    parser.add_argument(
        "--to",
        choices=("otlp-json",),
        default="otlp-json",
        help="the format: OTLP/JSON trace data (default: %(default)s)",
    )
    parser.add_argument("-o", "--output", metavar="FILE", help="write to FILE (default: stdout)")
    parser.add_argument("--at", type=int, metavar="SEQ", help="the session as it was at SEQ")
    parser.add_argument("--lenient", action="store_true", help="skip events the lifecycle refuses")
