"""``correx-tools replay-all``: replay every session of a store in parallel processes."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ....core.catalog.short_names import short_names
from ....core.lifecycle.state import ToolState
from ....core.replay.fold import Replay
from ....core.replay.projection import ToolProjector
from ...replay.parallel import replay_all
from .. import arguments
from ..output.readable import counted
from ..output.render import emit
from ..output.tables import Column, table
from ..sources.stores import open_store


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools replay-all``."""
    arguments.add_source(parser)
    parser.add_argument(
        "--workers", type=arguments.positive, default=2, help="processes (default: %(default)s)"
    )
    arguments.add_lenient_argument(parser)
    arguments.add_shown_arguments(parser, masked=False)


def session_summary(replay: Replay[ToolState]) -> dict[str, int]:
    """What ``replay-all`` reports of a session (computed in the worker process)."""
    return {
        "events": replay.last_sequence,
        "invocations": len(replay.state),
        "refused_events": len(replay.quarantined),
    }


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools replay-all``; the exit status."""
    store = open_store(args.source)
    started = time.perf_counter()
    outcome = replay_all(
        store,
        ToolProjector(),
        workers=args.workers,
        strict=not args.lenient,
        summarize=session_summary,
    )
    seconds = time.perf_counter() - started
    rows: list[dict[str, Any]] = [
        {"session_id": session, **summary, "error": None}
        for session, summary in outcome.summaries.items()
    ]
    rows += [
        {
            "session_id": s,
            "events": None,
            "invocations": None,
            "refused_events": None,
            "error": e.message,
        }
        for s, e in outcome.failures.items()
    ]
    rows.sort(key=lambda row: str(row["session_id"]))
    events = sum(int(r["events"] or 0) for r in rows)
    document = {
        "workers": args.workers,
        "seconds": round(seconds, 3),
        "events": events,
        "sessions": rows,
    }
    emit(
        args,
        document,
        lambda: (
            f"replayed {len(rows) - len(outcome.failures):,} of {counted(len(rows), 'session')} "
            f"({counted(events, 'event')}) with {counted(args.workers, 'worker')} "
            f"in {seconds:.2f} s\n"
            + table(
                _columns(rows),
                [
                    (
                        r["session_id"],
                        r["events"],
                        r["invocations"],
                        r["refused_events"],
                        r["error"],
                    )
                    for r in rows
                ],
                wide=args.wide,
            )
        ),
    )
    if outcome.failures and not args.json:
        for session, error in sorted(outcome.failures.items()):
            print(f"correx-tools replay-all: error: {session}: {error.message}", file=sys.stderr)
        if not args.lenient:
            print(
                f"correx-tools replay-all: {len(outcome.failures)} of {len(rows)} sessions "
                "failed; --lenient skips the events the lifecycle refuses",
                file=sys.stderr,
            )
    return 1 if outcome.failures else 0


def _columns(rows: list[dict[str, Any]]) -> tuple[Column, ...]:
    """The table's columns: each session's id cut to no less than its short name."""
    names = short_names(str(r["session_id"]) for r in rows)
    return (
        Column("session", fit="id", least=max(map(len, names.values()), default=0)),
        Column("events", right=True),
        Column("invocations", right=True),
        Column("refused", right=True),
        Column("error", fit="cut", least=20, give=1),
    )
