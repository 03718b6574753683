"""``correx-tools demo``: write a realistic agent run to SQLite, replay it, walk back through it."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta
from importlib import resources
from pathlib import Path
from typing import Any

from returns.result import Success

from ....core.lifecycle.events import StoredEvent, ToolInvocationRequestedEvent
from ....core.lifecycle.state import ToolState
from ....core.lifecycle.status import ToolInvocationStatus
from ....core.replay.fold import Replay
from ....core.replay.retention import Retention
from ....core.replay.timeline import Timeline
from ....core.tools.ids import SessionId
from ...replay.replayer import EventReplayer
from ...replay.repository import DefaultToolRepository
from ...stores.codec.envelope import format_timestamp
from ...stores.sqlite import SQLiteEventStore
from ...transcripts.importing.importing import import_bytes
from ...transcripts.importing.options import ImportOptions
from .. import arguments
from ..errors import CliError
from ..output.calls_table import Shown, changes_table, shown_id, status_counts
from ..output.readable import counted
from ..output.render import emit
from ..output.tables import Column, table
from ..output.terminal import Progress
from ..sources.loading import TIMELINE_STRIDE, replay_session
from ..sources.stores import open_store
from .demo_session import Step, agent_session


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools demo``."""
    parser.add_argument(
        "--db", default="correx-demo.sqlite", help="the SQLite file to write (default: %(default)s)"
    )
    parser.add_argument(
        "--sessions",
        type=arguments.positive,
        default=4,
        help="sessions to write (default: %(default)s)",
    )
    parser.add_argument(
        "--invocations",
        type=arguments.positive,
        default=2_500,
        help="tool calls per session (default: %(default)s)",
    )


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools demo``; the exit status."""
    path = Path(args.db)
    store = open_store(str(path), create=True)
    if not isinstance(store, SQLiteEventStore):
        raise CliError(
            f"{args.db}: the demo writes a SQLite file; give a path that does not end in .jsonl"
        )
    started = time.perf_counter()
    written, planted = _write_run(store, args)
    write_seconds = time.perf_counter() - started
    focus = SessionId(next(iter(written)))
    started = time.perf_counter()
    replay = replay_session(store, focus, lenient=True, retention=Retention.every(TIMELINE_STRIDE))
    replay_seconds = time.perf_counter() - started
    timeline = replay.timeline
    assert timeline is not None
    failed = timeline.first(
        lambda state: any(r.status is ToolInvocationStatus.FAILED for r in state.records())
    ).value_or(None)
    document: dict[str, Any] = {
        "db": str(path),
        "sessions": written,
        "events": sum(written.values()),
        "write_seconds": round(write_seconds, 3),
        "replayed_session": focus,
        "replay_seconds": round(replay_seconds, 3),
        "statuses": status_counts(replay.state),
        "refused_events": [
            {"sequence": e.sequence, "error": str(err)} for e, err in replay.quarantined
        ],
        "first_failure": failed,
    }
    clean = [session for session, count in planted.items() if count == 0]
    document["planted_faults"] = planted
    lines = [
        f"wrote {counted(document['events'], 'event')} in {counted(len(written), 'session')} "
        f"to {path} in {write_seconds:.1f} s",
        table(
            (Column("session"), Column("events", right=True), Column("planted faults")),
            [
                (s, n, planted[s] if planted[s] else "none (replays strictly)")
                for s, n in written.items()
            ],
            wide=False,
        ),
        "",
        f"replayed {focus}: {counted(replay.last_sequence, 'event')} in {replay_seconds:.2f} s "
        f"({replay.last_sequence / max(replay_seconds, 1e-9):,.0f} events/s)",
        "invocations by status: "
        + ", ".join(f"{n:,} {s}" for s, n in document["statuses"].items() if n),
        *_refused_lines(replay),
    ]
    if failed is not None:
        event = timeline.event(failed)
        record = timeline.at(failed).find(getattr(event.event, "invocation_id", ""))
        before = timeline.at(failed - 1)
        lines += [
            "",
            f"time travel: the first failure is at sequence {failed} "
            f"({format_timestamp(event.recorded_at)})",
        ]
        if record is not None:
            lines.append(
                f"  {shown_id(focus, record.invocation_id)} ({record.tool_name}): {record.reason}"
            )
            document["failure_history"] = [
                {"sequence": s, "status": r.status.value}
                for s, r in timeline.history(record.invocation_id)
            ]
            lines.append(
                "  its history: "
                + ", ".join(
                    f"{r.status.name} at {s}" for s, r in timeline.history(record.invocation_id)
                )
            )
        lines.append(
            f"  just before it (sequence {failed - 1}): {counted(len(before), 'invocation')}, "
            + ", ".join(f"{n:,} {s}" for s, n in status_counts(before).items() if n)
        )
        end = min(failed + 20, len(timeline))
        changes = timeline.diff(failed - 1, end)
        document["diff"] = {"a": failed - 1, "b": end, "changes": len(changes)}
        were = "was" if len(changes) == 1 else "were"
        lines.append(
            f"  from sequence {failed - 1} to {end}, {counted(len(changes), 'invocation')} "
            f"{were} added or changed:"
        )
        lines.append(changes_table(changes, Shown(focus), wide=False))
    real, real_lines, real_hints = _real_session(store, path)
    document["transcript"] = real
    lines += real_lines
    lines += [
        "",
        "explore it yourself:",
        *_hints(path, focus, replay=replay, failed=failed, timeline=timeline, clean=clean),
        *real_hints,
    ]
    emit(args, document, lambda: "\n".join(lines))
    return 0


def _refused_lines(replay: Replay[ToolState]) -> list[str]:
    """The illegal events the replay skipped (the first five), or that there were none."""
    refused = replay.quarantined
    if not refused:
        return ["no illegal events: the session replays strictly"]
    return [
        f"{counted(len(refused), 'illegal event')} refused by the lifecycle and skipped:",
        *(f"  {err}" for _, err in refused[:5]),
    ]


def _hints(
    path: Path,
    focus: str,
    *,
    replay: Replay[ToolState],
    failed: int | None,
    timeline: Timeline[ToolState],
    clean: list[str],
) -> list[str]:
    """Commands to run next, with points and ids taken from the session just written."""
    last = replay.last_sequence
    lenient = " --lenient" if replay.quarantined else ""
    point = failed - 1 if failed is not None else last // 2
    a, b = (failed - 1, min(failed + 20, last)) if failed is not None else (0, min(last, 20))
    hints = [
        f"  correx-tools sessions {path}",
        f"  correx-tools replay {path} {focus} --at {point}{lenient}",
        f"  correx-tools diff {path} {focus} {a} {b}",
    ]
    if failed is not None:
        ended = timeline.event(failed).event
        invocation = getattr(ended, "invocation_id", None)
        if invocation is not None:
            hints.append(f"  correx-tools history {path} {focus} {shown_id(focus, invocation)}")
    if clean:
        hints.append(f"  correx-tools replay {path} {clean[0]}    # no planted faults: strict")
    hints.append(f"  correx-tools report {path} {focus}{lenient}    # the session in the browser")
    return hints


def _write_run(
    store: SQLiteEventStore, args: argparse.Namespace
) -> tuple[dict[str, int], dict[str, int]]:
    """A new run of ``args.sessions`` sessions: the events and planted bugs of each."""
    # Each demo adds a new run to the file: its ids never clash with earlier ones.
    runs = {s.split("-session-")[0] for s in store.sessions() if s.startswith("demo-run")}
    run = len(runs) + 1
    start = datetime(2026, 12, 1, 9, 0, tzinfo=UTC) + timedelta(days=run - 1)
    written: dict[str, int] = {}
    planted: dict[str, int] = {}
    calls = args.sessions * args.invocations
    with Progress(f"writing {calls:,} tool calls to {args.db}", calls, sys.stderr) as bar:
        for number in range(args.sessions):
            session = SessionId(f"demo-run{run:02d}-session-{number + 1}")
            planted[session] = 0
            steps = _counted(
                agent_session(
                    session,
                    args.invocations,
                    seed=run * 1000 + number,
                    start=start + timedelta(hours=number),
                    # Every session but the first may carry a few planted orchestrator bugs.
                    faults=number > 0,
                ),
                planted,
                session,
            )
            written[session] = _write_turns(store, session, steps, bar, args.db)
    return written, planted


def _write_turns(
    store: SQLiteEventStore, session: SessionId, steps: Iterator[Step], bar: Progress, db: str
) -> int:
    """Write one session a transaction per agent turn; its last sequence."""
    last = 0
    for turn in _turns(steps):
        # Each event keeps its own time.
        result = store.import_events(
            StoredEvent(session_id=session, sequence=last + offset, recorded_at=at, event=event)
            for offset, (at, event) in enumerate(turn, start=1)
        )
        if not isinstance(result, Success):
            raise CliError(f"{db}: {result.failure().message}")
        last += len(turn)
        bar.advance(sum(type(event) is ToolInvocationRequestedEvent for _, event in turn))
    return last


BUNDLED = "claude_code_subagent.jsonl"
"""A real Claude Code transcript shipped for the demo (``data/PROVENANCE.txt``: MIT)."""
REAL_SESSION = "real-claude-code-subagent"
"""The session the demo imports `BUNDLED` as."""


def _real_session(
    store: SQLiteEventStore, path: Path
) -> tuple[dict[str, Any], list[str], list[str]]:
    """The bundled real transcript imported into the demo's file: a summary, what
    the demo prints about it and the commands that look closer."""
    data = (resources.files("correx_tools.shell.cli") / "data" / BUNDLED).read_bytes()
    # A readable session id that sorts after the generated runs, instead of
    # the transcript's own uuid/agent id.
    # With its conversation, as any import of a transcript: what led to each call, and the
    # tokens each spent, are part of what the demo shows.
    imported = import_bytes(
        data, BUNDLED, store, ImportOptions(), name=REAL_SESSION, session=REAL_SESSION
    ).unwrap()
    session = imported.session_id
    repository = DefaultToolRepository(EventReplayer(store))
    failures = [
        versions[-1]
        for record in repository.get(session).unwrap().records()
        if record.status is ToolInvocationStatus.FAILED
        for versions in [repository.history(session, record.invocation_id).unwrap()]
    ]
    counts = ", ".join(f"{n:,} {s}" for s, n in imported.statuses.items() if n)
    lines = [
        "",
        f"a real session: a Claude Code subagent's transcript ({BUNDLED}, MIT licensed; "
        "see correx_tools/shell/cli/data/PROVENANCE.txt)",
        f"  {'already in the file as' if imported.already_imported else 'imported as'} "
        f"session {session}: {counted(imported.invocations, 'invocation')} ({counts})",
    ]
    document: dict[str, Any] = {"session_id": session, "statuses": dict(imported.statuses)}
    hints = [f"  correx-tools replay {path} {session}    # the real session"]
    if failures:
        sequence, record = min(failures, key=lambda found: found[0])
        document["first_failure"] = {"sequence": sequence, "invocation_id": record.invocation_id}
        lines.append(
            f"  its first failure, at sequence {sequence}: {record.tool_name}: {record.reason}"
        )
        hints.append(
            f"  correx-tools history {path} {session} {shown_id(session, record.invocation_id)}"
        )
    return document, lines, hints


def _counted(steps: Iterator[Step], planted: dict[str, int], session: str) -> Iterator[Step]:
    """``steps``, counting the planted bugs of ``session`` in ``planted`` as they pass."""
    for step in steps:
        planted[session] += step.planted
        yield step


def _turns(steps: Iterator[Step], size: int = 24) -> Iterator[list[tuple[datetime, object]]]:
    turn: list[tuple[datetime, object]] = []
    for step in steps:
        turn.extend((step.at, event) for event in step.events)
        if len(turn) >= size:
            yield turn
            turn = []
    if turn:
        yield turn
