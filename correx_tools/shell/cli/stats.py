"""``correx-tools stats``: per-tool counts, rates and durations of a session, at any point."""

from __future__ import annotations

import argparse
from datetime import timedelta
from typing import Any

from ...core.replay.analytics import Percentiles, ToolStats, durations, in_flight, tool_stats
from .loading import session_at
from .render import emit, table


def cmd_stats(args: argparse.Namespace) -> int:
    _, session, at, state = session_at(args)
    stats = tool_stats(state)
    flying = in_flight(state)
    document = {
        "session_id": session,
        "at": at,
        "tools": [_stats_json(row) for row in stats],
        "in_flight": [
            {
                "invocation_id": record.invocation_id,
                "tool_name": record.tool_name,
                "status": record.status.value,
                "queued_seconds": _seconds(durations(record).queued),
            }
            for record in flying
        ],
    }

    def text() -> str:
        rows = [
            (
                row.tool_name,
                row.calls,
                f"{row.completed} ({row.completed_rate:.0%})",
                f"{row.failed} ({row.failed_rate:.0%})",
                f"{row.rejected} ({row.rejected_rate:.0%})",
                row.in_flight,
                _spread(row.queued),
                _spread(row.ran),
            )
            for row in stats
        ]
        lines = [
            f"session {session} at sequence {at}: {sum(r.calls for r in stats)} invocations "
            f"of {len(stats)} tools, {len(flying)} in flight",
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
            ),
        ]
        return "\n".join(lines)

    emit(args, document, text)
    return 0


def add_stats_arguments(parser: argparse.ArgumentParser, source_help: str) -> None:
    """The arguments of ``correx-tools stats``."""
    parser.add_argument("source", metavar="SOURCE", help=source_help)
    parser.add_argument("session", metavar="SESSION")
    parser.add_argument("--at", type=int, metavar="SEQ", help="the state right after this sequence")
    parser.add_argument("--lenient", action="store_true", help="skip events the lifecycle refuses")


def _stats_json(row: ToolStats) -> dict[str, Any]:
    return {
        "tool_name": row.tool_name,
        "calls": row.calls,
        "completed": row.completed,
        "failed": row.failed,
        "rejected": row.rejected,
        "in_flight": row.in_flight,
        "completed_rate": row.completed_rate,
        "failed_rate": row.failed_rate,
        "rejected_rate": row.rejected_rate,
        "queued_seconds": _percentiles_json(row.queued),
        "ran_seconds": _percentiles_json(row.ran),
    }


def _percentiles_json(spread: Percentiles) -> dict[str, float | None]:
    return {"p50": _seconds(spread.p50), "p95": _seconds(spread.p95), "max": _seconds(spread.max)}


def _seconds(duration: timedelta | None) -> float | None:
    return None if duration is None else duration.total_seconds()


def _spread(spread: Percentiles) -> str:
    if spread.max is None:
        return "-"
    return "/".join(_short(value) for value in spread)


def _short(duration: timedelta | None) -> str:
    if duration is None:
        return "-"
    seconds = duration.total_seconds()
    return f"{seconds * 1000:.0f}ms" if seconds < 1 else f"{seconds:.1f}s"
