"""``correx-tools stats``: per-tool counts, rates and durations of a session, at any point."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta

from ....core.lifecycle.status import ToolInvocationStatus
from ....core.replay.analytics import Percentiles, ToolStats, ToolStatsBuilder
from ....core.replay.outline import InvocationOutline
from ....core.replay.recorded import exited_nonzero
from ...replay.documents import NO_DURATIONS, stats_document
from ...replay.spent import talked_if_any, tokens_json
from ...transcripts.description import session_description
from .. import arguments
from ..output.readable import counted, duration
from ..output.render import emit, one_line, table
from ..output.tokens_text import tokens_text
from ..sources.loading import answered, times_recorded
from ..sources.prices import prices_of
from ..sources.streaming import streamed_session

InFlight = tuple[str, str, ToolInvocationStatus, timedelta | None]
"""A call in flight as ``stats`` shows it: id, tool, status, how long it queued."""
_IN_FLIGHT = frozenset({ToolInvocationStatus.REQUESTED, ToolInvocationStatus.STARTED})


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools stats``; the exit status."""
    prices = prices_of(args)
    tools: dict[str, str] = {}
    with streamed_session(args) as (store, session, at, view):
        times = times_recorded(store, session)
        imported = session_description(store, session) is not None
        talk = talked_if_any(store, session, at, imported=imported)
        outlines = answered(view.outlines(at), session, lenient=args.lenient)
        if talk is not None and talk.spending.calls:
            outlines = _noting_tools(outlines, tools)
        stats, flying = session_stats(outlines)
    document = stats_document(session, at, stats, flying, times=times)
    document["tokens"] = tokens_json(talk, prices=prices)
    spread = _spread if times else _none

    def text() -> str:
        rows = [
            (
                row.tool_name,
                row.calls,
                f"{row.completed:,} ({row.completed_rate:.0%})",
                f"{row.failed:,} ({row.failed_rate:.0%})",
                row.exited_nonzero,
                f"{row.rejected:,} ({row.rejected_rate:.0%})",
                row.in_flight,
                spread(row.queued),
                spread(row.ran),
            )
            for row in stats
        ]
        nonzero = sum(r.exited_nonzero for r in stats)
        lines = [
            f"session {one_line(session)} at sequence {at}: "
            f"{counted(sum(r.calls for r in stats), 'invocation')} of "
            f"{counted(len(stats), 'tool')}, {f'{len(flying):,}' if flying else 'none'} in flight"
            + (f", {nonzero:,} exited non-zero" if nonzero else ""),
            table(
                [
                    "tool",
                    "calls",
                    "completed",
                    "failed",
                    "exit ≠ 0",
                    "rejected",
                    "in flight",
                    "queued p50/p95/max",
                    "ran p50/p95/max",
                ],
                rows,
                squeeze=("tool",),
            ),
        ]
        if not times:
            lines.append(NO_DURATIONS)
        if talk is not None:
            lines.extend(tokens_text(talk, tools, prices))
        return "\n".join(lines)

    emit(args, document, text)
    return 0


def session_stats(
    outlines: Iterable[InvocationOutline],
) -> tuple[tuple[ToolStats, ...], list[InFlight]]:
    """`tool_stats` and the calls in flight (oldest request first, as `in_flight` orders
    them) of the invocations ``outlines`` gives, in one pass."""
    builder = ToolStatsBuilder()
    add = builder.add
    flying: list[tuple[datetime, str, InFlight]] = []
    for (invocation, tool, _, _, requested_at, _, started_at, _, ended_at, status,
         _, exit_code) in outlines:  # fmt: skip
        add(tool, status, requested_at, started_at, ended_at,
            nonzero=exited_nonzero(status, exit_code))  # fmt: skip
        if status in _IN_FLIGHT:
            queued = None if started_at is None else started_at - requested_at
            flying.append((requested_at, invocation, (invocation, tool, status, queued)))
    flying.sort(key=lambda item: (item[0], item[1]))
    return builder.stats(), [item[2] for item in flying]


def _noting_tools(
    outlines: Iterable[InvocationOutline], tools: dict[str, str]
) -> Iterator[InvocationOutline]:
    """The outlines, each call's tool noted on the way (for the calls' tokens)."""
    for outline in outlines:
        tools[outline[0]] = outline[1]
        yield outline


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools stats``."""
    arguments.add_source(parser, optional=True)
    arguments.add_session(parser)
    parser.add_argument("--at", type=int, metavar="SEQ", help="the state right after this sequence")
    parser.add_argument("--lenient", action="store_true", help="skip events the lifecycle refuses")
    arguments.add_prices_argument(parser)


def _none(spread: Percentiles) -> str:
    return "-"


def _spread(spread: Percentiles) -> str:
    if spread.max is None:
        return "-"
    return " / ".join(_short(value) for value in spread)


def _short(span: timedelta | None) -> str:
    return "-" if span is None else duration(span)
