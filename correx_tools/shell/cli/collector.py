"""``export --to otlp``: the spans to a collector, or one short error saying where and why not.

Before the first span, one empty export request goes to the endpoint with a
short deadline: a collector that is not there fails the command in about
`ANSWER_SECONDS`, whatever ``--timeout`` allows a batch, and in at most three
lines that name the endpoint tried and how to name another. The exporter's own
log lines (a warning per retry) are kept back: the error says it once.
"""

from __future__ import annotations

import logging
import sys
from collections.abc import Iterable, Iterator
from contextlib import contextmanager

from ...core.replay.spans import Span
from ..export.otel_sdk import DEFAULT_ENDPOINT, ENDPOINT, TRACES_ENDPOINT, otlp_http_exporter, send
from ..export.otlp import OtelMissing
from .errors import CliError

ANSWER_SECONDS = 2.0
"""How long a collector has to answer the first, empty request."""


def send_to_collector(
    trace_id: bytes, spans: Iterable[Span], endpoint: str, named_by: str | None, timeout: float
) -> int:
    """Send ``spans`` to the traces URL ``endpoint`` (named by ``named_by``; ``None``: the
    OpenTelemetry default, which is said on stderr); how many were sent."""
    if named_by is None:
        print(
            f"note: no endpoint named (--endpoint, {TRACES_ENDPOINT} or {ENDPOINT}): sending to "
            f"the OpenTelemetry default, {DEFAULT_ENDPOINT}",
            file=sys.stderr,
        )
    how = f"name the collector's traces URL with --endpoint URL or {TRACES_ENDPOINT}=URL"
    try:
        with _exporter_quiet():
            from opentelemetry.sdk.trace.export import SpanExportResult  # noqa: PLC0415

            probe = otlp_http_exporter(endpoint, min(timeout, ANSWER_SECONDS))
            answered = probe.export([]) is SpanExportResult.SUCCESS
            probe.shutdown()
            if not answered:
                raise CliError(
                    f"{endpoint}: no OTLP/HTTP collector answers there (an empty request got no "
                    f"answer within {min(timeout, ANSWER_SECONDS):g} s)\n  {how}"
                )
            return send(trace_id, spans, otlp_http_exporter(endpoint, timeout))
    except (OtelMissing, ImportError) as missing:
        raise CliError(
            str(missing)
            if isinstance(missing, OtelMissing)
            else "sending to a collector needs the OpenTelemetry SDK: "
            "pip install 'correx-tools[otel]'"
        ) from None
    except OSError as error:
        raise CliError(f"{endpoint}: {error}\n  {how}") from None


@contextmanager
def _exporter_quiet() -> Iterator[None]:
    """The exporters' log lines (one per retry) kept back; as they were afterwards."""
    logger = logging.getLogger("opentelemetry.exporter")
    quiet = logging.NullHandler()  # a handler, so that Python's last resort prints nothing
    propagate = logger.propagate
    logger.addHandler(quiet)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(quiet)
        logger.propagate = propagate
