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

from ....core.replay.spans import Span
from ...export.otel_sdk import (
    DEFAULT_ENDPOINT,
    ENDPOINT,
    TRACES_ENDPOINT,
    otlp_http_exporter,
    send,
    within,
)
from ...export.otlp import OtelMissing
from ..errors import CliError

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
    said: list[str] = []
    try:
        with _exporter_quiet(said):
            from opentelemetry.sdk.trace.export import SpanExportResult  # noqa: PLC0415

            wait = min(timeout, ANSWER_SECONDS)
            probe = otlp_http_exporter(endpoint, wait)
            answered = within(lambda: probe.export([]), wait + 1)
            probe.shutdown()
            if answered is not SpanExportResult.SUCCESS:
                # The exporter said why in its log (an HTTP status, a refused connection).
                why = (
                    f": {said[-1]}"
                    if said
                    else f" (an empty request got no answer within {wait:g} s)"
                )
                raise CliError(f"{endpoint}: no OTLP/HTTP collector takes traces there{why}; {how}")
            exporter = otlp_http_exporter(endpoint, timeout)
            return send(trace_id, spans, exporter, deadline=timeout)
    except (OtelMissing, ImportError) as missing:
        raise CliError(
            str(missing)
            if isinstance(missing, OtelMissing)
            else "sending to a collector needs the OpenTelemetry SDK: "
            "pip install 'correx-tools[otel]'"
        ) from None
    except OSError as error:
        why = f" ({said[-1]})" if said else ""
        raise CliError(f"{endpoint}: {error}{why}") from None


class _Kept(logging.Handler):
    """Keeps what the exporter logs (its only account of why it failed), first line each."""

    def __init__(self, said: list[str]) -> None:
        super().__init__(logging.DEBUG)
        self.said = said

    def emit(self, record: logging.LogRecord) -> None:
        """Keep the record's first line."""
        lines = record.getMessage().strip().splitlines()
        if lines and record.levelno >= logging.WARNING:
            self.said.append(lines[0][:300])


@contextmanager
def _exporter_quiet(said: list[str]) -> Iterator[None]:
    """The exporters' log lines (one per retry) kept back in ``said``; as they were
    afterwards."""
    logger = logging.getLogger("opentelemetry.exporter")
    quiet = _Kept(said)  # a handler, so that Python's last resort prints nothing
    propagate = logger.propagate
    logger.addHandler(quiet)
    logger.propagate = False
    try:
        yield
    finally:
        logger.removeHandler(quiet)
        logger.propagate = propagate
