"""``correx-tools stats``: per-tool counts, rates and durations of a session, at any point."""

from __future__ import annotations

import argparse
from collections.abc import Iterable, Iterator
from datetime import datetime, timedelta

from ....core.lifecycle.status import ToolInvocationStatus
from ....core.replay.analytics import Percentiles, ToolStats, ToolStatsBuilder
from ....core.replay.outline import InvocationOutline
from ....core.replay.recorded import exited_nonzero, recorded_start
from ...replay.documents import NO_DURATIONS, stats_document
from ...replay.spent import talked_if_any, tokens_json
from ...transcripts.description import session_description
from .. import arguments
from ..output.readable import counted, duration
from ..output.render import emit, one_line
from ..output.tables import Column, table
from ..output.tokens_table import tokens_text, top_calls
from ..sources.loading import answered, times_recorded
from ..sources.prices import prices_of
from ..sources.shown import calls_shown, redaction_of
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
        stats, flying = session_stats(outlines, imported=imported)
        shown = calls_shown(args, store, session, view, [] if talk is None else top_calls(talk))
    redaction = redaction_of(args)
    document = stats_document(session, at, stats, flying, times=times, redaction=redaction)
    document["tokens"] = tokens_json(talk, redaction, prices=prices, times=times)

    def text() -> str:
        nonzero = sum(r.exited_nonzero for r in stats)
        lines = [
            f"session {one_line(session)} at sequence {at}: "
            f"{counted(sum(r.calls for r in stats), 'invocation')} of "
            f"{counted(len(stats), 'tool')}, {f'{len(flying):,}' if flying else 'none'} in flight"
            + (f", {nonzero:,} exited non-zero" if nonzero else ""),
        ]
        if times and imported:
            lines += _starts_note(stats)
        lines.append(stats_table(stats, times=times, wide=args.wide))
        if not times:
            lines.append(NO_DURATIONS)
        if talk is not None:
            lines.extend(tokens_text(talk, tools, prices, shown, wide=args.wide))
        return "\n".join(lines)

    emit(args, document, text)
    return 0


COLUMNS = (
    Column("tool", fit="cut", least=6, ease=12, give=1),
    Column("calls", right=True),
    Column("completed", right=True),
    Column("failed", right=True),
    Column("rejected", right=True, drop=4),
    Column("exit ≠ 0", right=True, drop=3),
    Column("in flight", right=True, drop=7),
    Column("took p50/p95/max"),
    Column("queued p50/p95/max", drop=6),
    Column("ran p50/p95/max", drop=5),
)
"""The table's columns: the times last, whole (a figure cut is no figure), what a call
waited for dropped first."""


def stats_table(stats: tuple[ToolStats, ...], *, times: bool, wide: bool) -> str:
    """The per-tool table; each duration's figures say of how many calls they are where
    that is fewer than the calls they could be of (``times`` false: none is shown). Where
    no start is recorded at all, the columns of what only a start tells are left out."""
    rows = [
        (
            row.tool_name,
            row.calls,
            f"{row.completed:,} ({row.completed_rate:.0%})",
            f"{row.failed:,} ({row.failed_rate:.0%})",
            f"{row.rejected:,} ({row.rejected_rate:.0%})",
            row.exited_nonzero,
            row.in_flight,
            _spread(row.took, row.completed + row.failed + row.rejected, times),
            _spread(row.queued, row.calls - row.rejected, times),
            _spread(row.ran, row.completed + row.failed, times),
        )
        for row in stats
    ]
    if any(row.queued.calls for row in stats):
        return table(COLUMNS, rows, wide=wide)
    return table(COLUMNS[:-2], [row[:-2] for row in rows], wide=wide)


def _starts_note(stats: tuple[ToolStats, ...]) -> list[str]:
    """What the figures are of, where the transcript records few starts."""
    ran = sum(r.completed + r.failed for r in stats)
    timed = sum(r.ran.calls for r in stats)
    if timed >= ran:
        return []
    if not timed:
        return ["the transcript records no start: took is from request to end (how long a "
                "call waited, and ran, is not known)"]  # fmt: skip
    return [
        f"starts recorded: {timed:,} of {counted(ran, 'call')} that ran (queued and ran are "
        "of those; took: request to end)"
    ]


def session_stats(
    outlines: Iterable[InvocationOutline], *, imported: bool = False
) -> tuple[tuple[ToolStats, ...], list[InFlight]]:
    """`tool_stats` and the calls in flight (oldest request first, as `in_flight` orders
    them) of the invocations ``outlines`` gives, in one pass (``imported``: as `tool_stats`
    takes it)."""
    builder = ToolStatsBuilder(imported=imported)
    add = builder.add
    flying: list[tuple[datetime, str, InFlight]] = []
    for (invocation, tool, _, _, requested_at, _, started_at, _, ended_at, status,
         _, exit_code) in outlines:  # fmt: skip
        add(tool, status, requested_at, started_at, ended_at,
            nonzero=exited_nonzero(status, exit_code))  # fmt: skip
        if status in _IN_FLIGHT:
            start = recorded_start(requested_at, started_at, imported=imported)
            queued = None if start is None else start - requested_at
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
    arguments.add_lenient_argument(parser)
    arguments.add_prices_argument(parser)
    arguments.add_shown_arguments(parser)


def _spread(spread: Percentiles, could: int, times: bool) -> str:
    """``p50 / p95 / max``, and of how many calls where fewer than ``could`` (``-``: none)."""
    if not times or spread.max is None:
        return "-"
    said = " / ".join(_short(value) for value in spread.spread)
    return said if spread.calls >= could else f"{said} ({spread.calls:,})"


def _short(span: timedelta | None) -> str:
    return "-" if span is None else duration(span)
