"""``correx-tools diff``: the invocations added or changed between two sequences."""

from __future__ import annotations

import argparse

from ....core.replay.summary import DiffSummary
from ...replay.documents import (
    by_status,
    diff_document,
    diff_summary_document,
)
from .. import arguments
from ..errors import CliError
from ..output.calls_table import changes_table
from ..output.readable import counted
from ..output.render import emit, one_line
from ..sources.loading import answered, in_range, opened_session, times_recorded
from ..sources.shown import calls_shown, redaction_of

TOOLS_SHOWN = 10


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools diff``."""
    arguments.add_source(parser, optional=True)
    arguments.add_session(parser)
    parser.add_argument("a", type=int, metavar="A")
    parser.add_argument("b", type=int, metavar="B")
    parser.add_argument(
        "--summary",
        action="store_true",
        help="only count them: added, changed, finished, by status and by tool",
    )
    parser.add_argument(
        "--limit",
        type=arguments.count,
        default=50,
        help="show the first N of them, and how many there are (0: all; default: %(default)s)",
    )
    arguments.add_shown_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools diff``; the exit status."""
    with opened_session(args, lenient=True) as (store, session, view):
        times = times_recorded(store, session)
        a, b = in_range(view, args.a, "A"), in_range(view, args.b, "B")
        if a > b:
            raise CliError(f"A={a} is after B={b}: diff goes forward in time")
        counts = answered(view.diff_summary(a, b), session, lenient=True)
        limit = None if args.limit == 0 else args.limit
        changes = () if args.summary else answered(view.diff(a, b, limit), session, lenient=True)
        # A call that exited non-zero did so as it completed: those that completed in (a, b].
        nonzero = (answered(view.summary(b), session, lenient=True).exited_nonzero
                   - answered(view.summary(a), session, lenient=True).exited_nonzero)  # fmt: skip
        shown = calls_shown(args, store, session, view, [c.invocation_id for c in changes])
    heading = (
        f"session {one_line(session)} from sequence {a} to {b}: "
        f"{counted(counts.total, 'invocation')} added or changed"
    )
    redaction = redaction_of(args)
    if args.summary:
        emit(
            args,
            diff_summary_document(session, counts, redaction=redaction, exited_nonzero=nonzero),
            lambda: summary_text(heading, counts, nonzero),
        )
        return 0
    document = diff_document(
        session, a, b, changes, times=times, redaction=redaction, imported=shown.imported
    )
    document.update(total=counts.total, limit=limit, exited_nonzero=nonzero)

    def text() -> str:
        lines = [heading + (":" if changes else "")]
        if len(changes) < counts.total:
            lines[0] = (
                f"{heading}; the first {len(changes):,} (--limit 0 shows all, "
                "--summary counts them):"
            )
        if nonzero:
            lines.insert(1, f"{counted(nonzero, 'call')} exited non-zero in between")
        if changes:
            lines.append(changes_table(changes, shown, wide=args.wide))
        return "\n".join(lines)

    emit(args, document, text)
    return 0


def summary_text(heading: str, counts: DiffSummary, nonzero: int = 0) -> str:
    """``diff --summary``: the counts in a few lines, the busiest tools first; the calls
    that exited non-zero beside the completed (they are among them)."""
    said = [f"{n:,} {s}" for s, n in by_status(counts.counts).items() if n]
    if nonzero:
        at = next(k for k, part in enumerate(said) if part.endswith(" completed"))
        said.insert(at + 1, f"{nonzero:,} of them exited non-zero")
    statuses = ", ".join(said)
    tools = sorted(counts.tools.items(), key=lambda item: (-sum(item[1]), item[0]))
    named = ", ".join(f"{tool} {sum(n):,}" for tool, n in tools[:TOOLS_SHOWN])
    if len(tools) > TOOLS_SHOWN:
        named += f" and {counted(len(tools) - TOOLS_SHOWN, 'more tool')}"
    lines = [
        heading,
        f"  {counts.added:,} added, {counts.changed:,} changed, {counts.finished:,} finished",
    ]
    if statuses:
        lines += [f"  by status at {counts.b}: {statuses}", f"  by tool: {named}"]
    return "\n".join(lines)
