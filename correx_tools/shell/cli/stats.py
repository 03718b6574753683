"""``correx-tools stats``: per-tool counts, rates and durations of a session, at any point."""

from __future__ import annotations

import argparse
from datetime import timedelta

from ...core.replay.analytics import Percentiles, durations, in_flight, tool_stats
from ..replay.documents import stats_document
from .loading import SESSION_HELP, session_at
from .readable import counted, duration
from .render import emit, table


def cmd_stats(args: argparse.Namespace) -> int:
    _, session, at, state = session_at(args)
    stats = tool_stats(state)
    flying = in_flight(state)
    document = stats_document(
        session,
        at,
        stats,
        (
            (record.invocation_id, record.tool_name, record.status, durations(record).queued)
            for record in flying
        ),
    )

    def text() -> str:
        rows = [
            (
                row.tool_name,
                row.calls,
                f"{row.completed:,} ({row.completed_rate:.0%})",
                f"{row.failed:,} ({row.failed_rate:.0%})",
                f"{row.rejected:,} ({row.rejected_rate:.0%})",
                row.in_flight,
                _spread(row.queued),
                _spread(row.ran),
            )
            for row in stats
        ]
        lines = [
            f"session {session} at sequence {at}: "
            f"{counted(sum(r.calls for r in stats), 'invocation')} of "
            f"{counted(len(stats), 'tool')}, {f'{len(flying):,}' if flying else 'none'} in flight",
            table(
                [
                    "tool",
                    "calls",
                    "completed",
                    "failed",
                    "rejected",
                    "in flight",
                    "queued p50/p95/max",
                    "ran p50/p95/max",
                ],
                rows,
                squeeze=("tool",),
            ),
        ]
        return "\n".join(lines)

    emit(args, document, text)
    return 0


def add_stats_arguments(parser: argparse.ArgumentParser, source_help: str) -> None:
    """The arguments of ``correx-tools stats``."""
    parser.add_argument("source", metavar="SOURCE", help=source_help)
    parser.add_argument("session", metavar="SESSION", help=SESSION_HELP)
    parser.add_argument("--at", type=int, metavar="SEQ", help="the state right after this sequence")
    parser.add_argument("--lenient", action="store_true", help="skip events the lifecycle refuses")


def _spread(spread: Percentiles) -> str:
    if spread.max is None:
        return "-"
    return " / ".join(_short(value) for value in spread)


def _short(span: timedelta | None) -> str:
    return "-" if span is None else duration(span)
