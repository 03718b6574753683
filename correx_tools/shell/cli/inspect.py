"""The commands that look at one session: sessions, replay, history and diff.

Each asks the repository (`loading`): from a store's time-travel index
they read only what they show, so they answer at once on large sessions.
"""

from __future__ import annotations

import argparse
from typing import Any

from returns.result import Success

from ...core.lifecycle.record import ToolInvocationRecord
from ...core.lifecycle.status import ToolInvocationStatus
from ...core.tools.ids import InvocationId
from ..replay.documents import (
    by_status,
    diff_document,
    history_document,
    iso_time,
    refused_about,
    session_row,
    state_document,
)
from ..replay.view import SessionView
from ..transcripts.description import description_json, session_description
from .errors import CliError
from .loading import answered, in_range, repository_for
from .render import changes_table, emit, record_detail, records_table, table
from .sources import find_session, open_store

REFUSED_SHOWN = 10
SESSION_COLUMNS = ("session", "events", "invocations", "completed", "failed", "rejected",
                   "open", "refused")  # fmt: skip


def cmd_sessions(args: argparse.Namespace) -> int:
    store = open_store(args.source)
    repository = repository_for(store, args.source, lenient=True)
    rows: list[dict[str, Any]] = []
    for session in store.sessions():
        with repository.view(session) as view:
            summary = answered(view.summary(), session, lenient=True)
        transcript = description_json(session_description(store, session))
        rows.append(session_row(summary, transcript=transcript))
    emit(
        args,
        {"source": args.source, "sessions": rows},
        lambda: _imported(
            rows,
            table(
                SESSION_COLUMNS,
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
        ),
    )
    return 0


def _imported(rows: list[dict[str, Any]], counts: str) -> str:
    """The sessions' table, then where the imported ones came from."""
    imported = [r for r in rows if r["transcript"] is not None]
    if not imported:
        return counts
    columns = ("session", "format", "agent's session id", "started", "working directory")
    described = [
        (r["session_id"], t["format"], t["agent_session_id"], t["started_at"], t["cwd"])
        for r in imported
        for t in [r["transcript"]]
    ]
    return f"{counts}\n\nimported from transcripts:\n{table(columns, described)}"


def cmd_replay(args: argparse.Namespace) -> int:
    store = open_store(args.source)
    session = find_session(store, args.session, args.source)
    repository = repository_for(store, args.source, lenient=args.lenient)
    with repository.view(session) as view:
        at = view.last_sequence if args.at is None else in_range(view, args.at, "--at")
        summary = answered(view.summary(at), session, lenient=args.lenient)
        refused = view.refused(at, limit=None if args.json else REFUSED_SHOWN)
        everything = args.json or args.limit == 0
        records: tuple[ToolInvocationRecord, ...] = (
            tuple(answered(view.at(at), session, lenient=args.lenient).records())
            if everything
            else answered(view.latest(args.limit, at), session, lenient=True)
        )
    statuses = by_status(summary.counts)
    document = state_document(session, at, summary, records, refused)

    def text() -> str:
        counts = ", ".join(f"{n} {s}" for s, n in statuses.items() if n)
        lines = [
            f"session {session} at sequence {at}: "
            f"{summary.invocations} invocations ({counts or 'none'})"
        ]
        if summary.refused:
            lines.append(
                f"{summary.refused} events refused by the lifecycle and skipped (--lenient)"
                + (f"; the first {len(refused)}:" if len(refused) < summary.refused else ":")
            )
            lines.extend(f"  {err}" for _, err in refused)
        if len(records) < summary.invocations:
            lines.append(
                f"the last {len(records)} of {summary.invocations} invocations "
                "(--limit 0 shows all):"
            )
        lines.append(records_table(records))
        return "\n".join(lines)

    emit(args, document, text)
    return 0


def cmd_history(args: argparse.Namespace) -> int:
    store = open_store(args.source)
    session = find_session(store, args.session, args.source)
    repository = repository_for(store, args.source, lenient=True)
    with repository.view(session) as view:
        history = answered(view.history(InvocationId(args.invocation)), session, lenient=True)
        if not history:
            raise CliError(
                f"invocation {args.invocation!r} was never requested in session {session!r}"
                + _full_id_hint(view, args.invocation)
            )
        refused = refused_about(view.refused(), args.invocation)
    rows = [
        (sequence, iso_time(_made_at(record)), record.status.name, record_detail(record))
        for sequence, record in history
    ]

    def text() -> str:
        first = history[0][1]
        lines = [
            f"{args.invocation} ({first.tool_name}, tier {first.tier.value}) in session {session}",
            table(["sequence", "recorded at", "status", "detail"], rows),
        ]
        if refused:
            noun = "event" if len(refused) == 1 else "events"
            lines.append(f"{len(refused)} {noun} about it refused by the lifecycle:")
            lines.extend(f"  {error}" for _, error in refused)
        return "\n".join(lines)

    emit(args, history_document(session, args.invocation, history, refused), text)
    return 0


def _full_id_hint(view: SessionView, given: str) -> str:
    """A hint naming the full id when ``given`` is the end of one (``call-00005``)."""
    session = view.session_id
    for candidate in (f"{session}/{given}", f"{session}-{given}", f"{session}:{given}"):
        found = view.history(InvocationId(candidate))
        if isinstance(found, Success) and found.unwrap():
            return f"; did you mean {candidate!r}?"
    return ""


def _made_at(record: ToolInvocationRecord) -> Any:
    """When the event that made this version of the record was recorded."""
    if record.status is ToolInvocationStatus.REQUESTED:
        return record.requested_at
    if record.status is ToolInvocationStatus.STARTED:
        return record.started_at
    return record.completed_at


def cmd_diff(args: argparse.Namespace) -> int:
    store = open_store(args.source)
    session = find_session(store, args.session, args.source)
    repository = repository_for(store, args.source, lenient=True)
    with repository.view(session) as view:
        a, b = in_range(view, args.a, "A"), in_range(view, args.b, "B")
        if a > b:
            raise CliError(f"A={a} is after B={b}: diff goes forward in time")
        changes = answered(view.diff(a, b), session, lenient=True)
    emit(
        args,
        diff_document(session, a, b, changes),
        lambda: (
            f"{len(changes)} invocations added or changed from sequence {a} to {b}\n"
            + changes_table(changes)
        ),
    )
    return 0
