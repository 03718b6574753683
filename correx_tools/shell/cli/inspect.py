"""The commands that look at one session: sessions, replay, history and diff."""

from __future__ import annotations

import argparse
from typing import Any

from ...core.tools.ids import InvocationId
from ..stores.envelope import format_timestamp
from .errors import CliError
from .loading import check_sequence, replay_session, session_timeline
from .render import (
    changes_table,
    emit,
    record_detail,
    record_json,
    records_table,
    status_counts,
    table,
)
from .sources import find_session, open_store


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
            record_detail(record),
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
