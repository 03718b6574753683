"""The ``correx-tools`` command: a thin shell that parses, calls the library, renders.

Every subcommand prints a readable table, or with ``--json`` one JSON document
on stdout. Errors are one line on stderr and exit status 1 (2 for a usage
error), never a traceback. The subcommands that read tool definitions live in
:mod:`.cli_tools`, the demo in :mod:`.cli_demo`, and what they share in
:mod:`.cli_common`.
"""

from __future__ import annotations

import argparse
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from returns.result import Success

from .._version import __version__
from ..core.events import StoredEvent
from ..core.fold import Replay
from ..core.ids import InvocationId
from ..core.projection import ToolProjector
from ..core.state import ToolState
from .cli_common import (
    CliError,
    _detail,
    changes_table,
    check_sequence,
    emit,
    find_session,
    open_store,
    record_json,
    records_table,
    redact,
    remove_new_store,
    replay_session,
    session_timeline,
    status_counts,
    table,
)
from .cli_demo import cmd_demo
from .cli_tools import add_tools_arguments, cmd_tools, cmd_validate
from .envelope import format_timestamp
from .jsonl_log import JsonlEventLog
from .parallel import replay_all
from .sources import POSTGRES_SCHEMES
from .store import StoreReadError

# -- subcommands ---------------------------------------------------------------


def cmd_sessions(args: argparse.Namespace) -> int:
    store = open_store(args.source)
    rows: list[dict[str, Any]] = []
    for session in store.sessions():
        replay = replay_session(store, session, lenient=True)
        counts = status_counts(replay.state)
        rows.append(
            {
                "session_id": session,
                "events": replay.last_sequence,
                "invocations": len(replay.state),
                "statuses": counts,
                "refused_events": len(replay.quarantined),
            }
        )
    emit(
        args,
        {"source": args.source, "sessions": rows},
        lambda: table(
            [
                "session",
                "events",
                "invocations",
                "completed",
                "failed",
                "rejected",
                "open",
                "refused",
            ],
            [
                (
                    r["session_id"],
                    r["events"],
                    r["invocations"],
                    r["statuses"]["completed"],
                    r["statuses"]["failed"],
                    r["statuses"]["rejected"],
                    r["statuses"]["requested"] + r["statuses"]["started"],
                    r["refused_events"],
                )
                for r in rows
            ],
        ),
    )
    return 0


def cmd_replay(args: argparse.Namespace) -> int:
    store = open_store(args.source)
    session = find_session(store, args.session, args.source)
    if args.at is not None and args.at < 0:
        raise CliError(f"--at {args.at}: a sequence is 0 or more")
    replay = replay_session(store, session, lenient=args.lenient, until=args.at)
    if args.at is not None and args.at > replay.last_sequence:
        raise CliError(
            f"--at {args.at} is beyond the end of session {session!r} "
            f"(last sequence {replay.last_sequence})"
        )
    records = list(replay.state.records())
    document = {
        "session_id": session,
        "at": replay.last_sequence,
        "invocations": [record_json(r) for r in records],
        "statuses": status_counts(replay.state),
        "quarantined": [
            {"sequence": e.sequence, "error": str(err)} for e, err in replay.quarantined
        ],
    }

    def text() -> str:
        counts = ", ".join(f"{n} {s}" for s, n in document["statuses"].items() if n)  # type: ignore[attr-defined]
        lines = [
            f"session {session} at sequence {replay.last_sequence}: "
            f"{len(records)} invocations ({counts or 'none'})"
        ]
        if replay.quarantined:
            lines.append(
                f"{len(replay.quarantined)} events refused by the lifecycle "
                "and skipped (--lenient):"
            )
            lines.extend(f"  {err}" for _, err in replay.quarantined[:10])
        shown = records[-args.limit :] if args.limit else records
        if len(shown) < len(records):
            lines.append(
                f"the last {len(shown)} of {len(records)} invocations (--limit 0 shows all):"
            )
        lines.append(records_table(shown))
        return "\n".join(lines)

    emit(args, document, text)
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    store = open_store(args.source)
    session = find_session(store, args.session, args.source)
    timeline = session_timeline(store, session)
    history = timeline.history(InvocationId(args.invocation))
    if not history:
        raise CliError(f"invocation {args.invocation!r} was never requested in session {session!r}")
    rows = [
        (
            sequence,
            format_timestamp(timeline.event(sequence).recorded_at),
            record.status.name,
            _detail(record),
        )
        for sequence, record in history
    ]
    emit(
        args,
        {
            "session_id": session,
            "invocation_id": args.invocation,
            "versions": [{"sequence": s, "record": record_json(r)} for s, r in history],
        },
        lambda: (
            f"{args.invocation} ({history[0][1].tool_name}, tier {history[0][1].tier.value}) "
            f"in session {session}\n" + table(["sequence", "recorded at", "status", "detail"], rows)
        ),
    )
    return 0


def cmd_diff(args: argparse.Namespace) -> int:
    store = open_store(args.source)
    session = find_session(store, args.session, args.source)
    timeline = session_timeline(store, session)
    a, b = check_sequence(timeline, args.a, "A"), check_sequence(timeline, args.b, "B")
    if a > b:
        raise CliError(f"A={a} is after B={b}: diff goes forward in time")
    changes = timeline.diff(a, b)
    emit(
        args,
        {
            "session_id": session,
            "a": a,
            "b": b,
            "changes": [
                {
                    "invocation_id": c.invocation_id,
                    "before": None if c.before is None else record_json(c.before),
                    "after": record_json(c.after),
                }
                for c in changes
            ],
        },
        lambda: (
            f"{len(changes)} invocations added or changed from sequence {a} to {b}\n"
            + changes_table(changes)
        ),
    )
    return 0


def cmd_import(args: argparse.Namespace) -> int:
    source = open_store(args.source)
    fresh = not args.dest.startswith(POSTGRES_SCHEMES) and not Path(args.dest).exists()
    events: list[StoredEvent] = []
    copied: dict[str, int] = {}
    for session in source.sessions():
        try:
            before = len(events)
            events.extend(source.read(session))
        except StoreReadError as error:
            raise CliError(f"{args.source}: {error.error}") from None
        copied[session] = len(events) - before
    destination = open_store(args.dest, create=True)
    # One import_events call: every session lands in one transaction, or none does.
    result = destination.import_events(events)
    if not isinstance(result, Success):
        close = getattr(destination, "close", None)
        if close is not None:
            close()
        if fresh:
            remove_new_store(Path(args.dest))
        raise CliError(f"{args.dest}: {result.failure().message}; nothing was imported")
    total = result.unwrap()
    emit(
        args,
        {"source": args.source, "dest": args.dest, "sessions": copied, "events": total},
        lambda: (
            f"copied {total} events in {len(copied)} sessions from {args.source} to {args.dest}"
        ),
    )
    return 0


def cmd_init_db(args: argparse.Namespace) -> int:
    store = open_store(args.source, create=True)
    if isinstance(store, JsonlEventLog):
        store.path.touch()
    emit(
        args,
        {"source": redact(args.source), "ready": True},
        lambda: f"{redact(args.source)}: ready",
    )
    return 0


def session_summary(replay: Replay[ToolState]) -> dict[str, int]:
    """What ``replay-all`` reports of a session (computed in the worker process)."""
    return {
        "events": replay.last_sequence,
        "invocations": len(replay.state),
        "refused_events": len(replay.quarantined),
    }


def cmd_replay_all(args: argparse.Namespace) -> int:
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
            f"replayed {len(rows)} sessions ({events:,} events) with {args.workers} workers "
            f"in {seconds:.2f} s\n"
            + table(
                ["session", "events", "invocations", "refused", "error"],
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
            )
        ),
    )
    return 1 if outcome.failures else 0


# -- the parser ----------------------------------------------------------------


def build_parser() -> argparse.ArgumentParser:
    """The argument parser of ``correx-tools``."""
    parser = argparse.ArgumentParser(
        prog="correx-tools",
        description="Inspect, replay and travel through recorded agent tool sessions.",
    )
    parser.add_argument("--version", action="version", version=f"%(prog)s {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    def command(
        name: str, handler: Callable[[argparse.Namespace], int], help_text: str
    ) -> argparse.ArgumentParser:
        sub = commands.add_parser(name, help=help_text, description=help_text)
        sub.add_argument("--json", action="store_true", help="print one JSON document on stdout")
        sub.set_defaults(handler=handler)
        return sub

    source_help = "a SQLite file, a .jsonl log or a postgresql:// URL"
    demo = command(
        "demo",
        cmd_demo,
        "write a realistic multi-session agent run to SQLite, then replay and inspect it",
    )
    demo.add_argument(
        "--db", default="correx-demo.sqlite", help="the SQLite file to write (default: %(default)s)"
    )
    demo.add_argument(
        "--sessions", type=_positive, default=4, help="sessions to write (default: %(default)s)"
    )
    demo.add_argument(
        "--invocations",
        type=_positive,
        default=2_500,
        help="tool calls per session (default: %(default)s)",
    )
    sessions = command(
        "sessions", cmd_sessions, "list the sessions of a store with their invocation counts"
    )
    sessions.add_argument("source", metavar="SOURCE", help=source_help)
    replay = command("replay", cmd_replay, "replay a session and show its invocations")
    replay.add_argument("source", metavar="SOURCE", help=source_help)
    replay.add_argument("session", metavar="SESSION")
    replay.add_argument(
        "--at",
        type=int,
        metavar="SEQ",
        help="the state right after this sequence (0: before any event)",
    )
    replay.add_argument(
        "--lenient",
        action="store_true",
        help="skip events the lifecycle refuses instead of stopping",
    )
    replay.add_argument(
        "--limit",
        type=int,
        default=20,
        help="show the last N invocations (0: all; default: %(default)s)",
    )
    history = command("history", cmd_history, "every version of one invocation's record")
    history.add_argument("source", metavar="SOURCE", help=source_help)
    history.add_argument("session", metavar="SESSION")
    history.add_argument("invocation", metavar="INVOCATION")
    diff = command("diff", cmd_diff, "the invocations added or changed between two sequences")
    diff.add_argument("source", metavar="SOURCE", help=source_help)
    diff.add_argument("session", metavar="SESSION")
    diff.add_argument("a", type=int, metavar="A")
    diff.add_argument("b", type=int, metavar="B")
    copy = command(
        "import", cmd_import, "copy every session of SOURCE into DEST (created if missing)"
    )
    copy.add_argument("source", metavar="SOURCE", help=source_help)
    copy.add_argument("dest", metavar="DEST", help=source_help)
    init_db = command("init-db", cmd_init_db, "create the tables of a store (idempotent)")
    init_db.add_argument("source", metavar="SOURCE", help=source_help)
    everything = command(
        "replay-all", cmd_replay_all, "replay every session of a store in parallel processes"
    )
    everything.add_argument("source", metavar="SOURCE", help=source_help)
    everything.add_argument(
        "--workers", type=_positive, default=2, help="processes (default: %(default)s)"
    )
    everything.add_argument(
        "--lenient", action="store_true", help="skip events the lifecycle refuses"
    )
    validate = command(
        "validate", cmd_validate, "validate a tool request against a file of tool definitions"
    )
    validate.add_argument(
        "tools",
        metavar="TOOLS",
        help="a JSON file of tool definitions: this library's "
        "{name, description, parameters, tier, capabilities}, or MCP, OpenAI or Anthropic",
    )
    validate.add_argument(
        "request",
        metavar="REQUEST",
        help='a JSON file or inline JSON: {"tool_name": ..., "arguments": {...}}',
    )
    tools = command(
        "tools", cmd_tools, "convert a file of tool definitions to OpenAI, Anthropic or MCP form"
    )
    add_tools_arguments(tools)
    return parser


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"{text} is not a positive number")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args.handler(args)
    except CliError as error:
        print(f"correx-tools {args.command}: error: {error}", file=sys.stderr)
        return 1
    except StoreReadError as error:
        print(f"correx-tools {args.command}: error: {error.error}", file=sys.stderr)
        return 1
    except BrokenPipeError:
        # The reader (``head``, say) stopped early: not an error. Point stdout at
        # /dev/null so the interpreter's final flush does not complain either.
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 0
    except (OSError, sqlite3.Error) as error:
        print(f"correx-tools {args.command}: error: {error}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print(f"correx-tools {args.command}: interrupted", file=sys.stderr)
        return 130
    return status
