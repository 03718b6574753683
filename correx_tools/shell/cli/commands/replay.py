"""``correx-tools replay``: a session's state at any sequence, its last invocations first."""

from __future__ import annotations

import argparse
from collections.abc import Mapping

from ....core.lifecycle.record import ToolInvocationRecord
from ....core.lifecycle.status import ToolInvocationStatus
from ...replay.documents import (
    by_status,
    state_document,
)
from .. import arguments
from ..output.calls_table import records_table
from ..output.readable import counted
from ..output.render import NO_TIMES, emit, one_line
from ..sources.loading import answered, asked_at, opened_session, times_recorded
from ..sources.shown import calls_shown, redaction_of

REFUSED_SHOWN = 10


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools replay``."""
    arguments.add_source(parser, optional=True)
    arguments.add_session(parser)
    parser.add_argument(
        "--at",
        type=int,
        metavar="SEQ",
        help="the state right after this sequence (0: before any event)",
    )
    parser.add_argument(
        "--lenient",
        action="store_true",
        help="skip events the lifecycle refuses instead of stopping",
    )
    parser.add_argument(
        "--limit",
        type=arguments.count,
        default=20,
        help="show the last N invocations (0: all; default: %(default)s)",
    )
    arguments.add_shown_arguments(parser)


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools replay``; the exit status."""
    with opened_session(args, lenient=args.lenient) as (store, session, view):
        times = times_recorded(store, session)
        at = asked_at(args, view)
        summary = answered(view.summary(at), session, lenient=args.lenient)
        refused = view.refused(at, limit=None if args.json else REFUSED_SHOWN)
        everything = args.json or args.limit == 0
        records: tuple[ToolInvocationRecord, ...] = (
            tuple(answered(view.at(at), session, lenient=args.lenient).records())
            if everything
            else answered(view.latest(args.limit, at), session, lenient=True)
        )
        shown = calls_shown(args, store, session, view, [r.invocation_id for r in records])
    document = state_document(
        session, at, summary, records, refused, times=times, redaction=redaction_of(args),
        imported=shown.imported,
    )  # fmt: skip

    def text() -> str:
        lines = [
            f"session {one_line(session)} at sequence {at}: "
            + invocations_by_status(summary.invocations, summary.counts, summary.exited_nonzero)
        ]
        if not times:
            lines.append(NO_TIMES)
        if summary.refused:
            lines.append(
                f"{counted(summary.refused, 'event')} refused by the lifecycle and skipped "
                "(--lenient)"
                + (f"; the first {len(refused)}:" if len(refused) < summary.refused else ":")
            )
            lines.extend(f"  {err}" for _, err in refused)
        if len(records) < summary.invocations:
            lines.append(
                f"the last {len(records):,} of {counted(summary.invocations, 'invocation')} "
                "(--limit 0 shows all):"
            )
        lines.append(records_table(records, shown, times=times, wide=args.wide))
        return "\n".join(lines)

    emit(args, document, text)
    return 0


def invocations_by_status(
    total: int, counts: Mapping[ToolInvocationStatus, int], exited_nonzero: int = 0
) -> str:
    """``2,500 invocations (2,257 completed, 12 of them exited non-zero, 194 failed, 49
    rejected)``: the statuses that have any, in the lifecycle's order, the non-zero exits
    (which are among the completed calls) beside them."""
    said = [f"{n:,} {s}" for s, n in by_status(counts).items() if n]
    if exited_nonzero:
        at = next(k for k, part in enumerate(said) if part.endswith(" completed"))
        said.insert(at + 1, f"{exited_nonzero:,} of them exited non-zero")
    shown = ", ".join(said)
    return counted(total, "invocation") + (f" ({shown})" if shown else "")
