"""The commands that look at one session: sessions, replay, history and diff.

Each asks the repository (`loading`): from a store's time-travel index
they read only what they show, so they answer at once on large sessions.
"""

from __future__ import annotations

import argparse
from collections.abc import Mapping
from typing import Any

from ...core.lifecycle.record import ToolInvocationRecord
from ...core.lifecycle.status import ToolInvocationStatus
from ...core.replay.summary import DiffSummary
from ..replay.documents import (
    by_status,
    diff_document,
    diff_summary_document,
    history_document,
    iso_time,
    refused_about,
    session_row,
    state_document,
)
from ..replay.ends import session_times
from ..replay.lead_up import lead_up_in, request_sequence
from ..replay.spent import call_spent_json, talked_if_any
from ..transcripts.description import description_json, session_description
from .errors import CliError
from .output.lead_up_text import arguments_text, lead_up_text, talk_of, talk_table
from .output.readable import counted
from .output.render import (
    changes_table,
    emit,
    one_line,
    record_detail,
    records_table,
    shown_id,
    table,
)
from .output.tokens_text import cost_text, spent_text
from .sources.loading import (
    answered,
    asked_at,
    find_invocation,
    in_range,
    opened_session,
    repository_for,
    times_recorded,
)
from .sources.prices import prices_of
from .sources.stores import open_store

REFUSED_SHOWN = 10
TOOLS_SHOWN = 10
SESSION_COLUMNS = ("session", "agent", "project", "events", "invocations", "completed",
                   "failed", "exit ≠ 0", "rejected", "open", "refused", "first event (UTC)",
                   "last event (UTC)")  # fmt: skip


def cmd_sessions(args: argparse.Namespace) -> int:
    store = open_store(args.source)
    repository = repository_for(store, args.source, lenient=True)
    rows: list[dict[str, Any]] = []
    for session in store.sessions():
        with repository.view(session) as view:
            summary = answered(view.summary(), session, lenient=True)
        transcript = description_json(session_description(store, session))
        row = session_row(summary, transcript=transcript, talk=talk_of(store, session))
        row["first_time"], row["last_time"] = session_times(store, session, summary.sequence,
                                                            transcript)  # fmt: skip
        rows.append(row)
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
                        r["agent"] or "-",
                        r["project"] or "-",
                        r["events"],
                        r["invocations"],
                        r["statuses"]["completed"],
                        r["statuses"]["failed"],
                        r["exited_nonzero"],
                        r["statuses"]["rejected"],
                        r["statuses"]["requested"] + r["statuses"]["started"],
                        r["refused_events"],
                        r["first_time"] or "-",
                        r["last_time"] or "-",
                    )
                    for r in rows
                ],
                squeeze=("session", "project"),
            ),
        ),
    )
    return 0


def _imported(rows: list[dict[str, Any]], counts: str) -> str:
    """The sessions' table, then where the imported ones came from, then what each session
    that holds a conversation said."""
    talking = [r for r in rows if r["said"] is not None]
    imported = [r for r in rows if r["transcript"] is not None]
    if not imported:
        return counts + (talk_table(talking) if talking else "")
    columns = ("session", "format", "agent's session id", "started", "working directory")
    described = [
        (r["session_id"], t["format"], t["agent_session_id"], t["started_at"], t["cwd"])
        for r in imported
        for t in [r["transcript"]]
    ]
    drawn = table(columns, described, squeeze=(columns[0], columns[2], columns[4]))
    return f"{counts}\n\nimported from transcripts:\n{drawn}{talk_table(talking)}"


def cmd_replay(args: argparse.Namespace) -> int:
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
    document = state_document(session, at, summary, records, refused, times=times)

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
        lines.append(records_table(records, session, times=times))
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


NO_TIMES = (
    "the transcript records no time for its steps: none is shown (their order is the sequences')"
)
"""What a command about a session says when its transcript records no time."""


def cmd_history(args: argparse.Namespace) -> int:
    prices = prices_of(args)
    with opened_session(args, lenient=True) as (store, session, view):
        times = times_recorded(store, session)
        invocation = find_invocation(view, args.invocation)
        history = answered(view.history(invocation), session, lenient=True)
        refused = refused_about(view.refused(), invocation)
        request = request_sequence(history)
        led = None if request is None else lead_up_in(store, session, request)
        imported = session_description(store, session) is not None
        talk = talked_if_any(store, session, view.last_sequence, imported=imported)
    spent = call_spent_json(talk, invocation, prices=prices)
    rows = [
        (
            str(sequence),
            iso_time(_made_at(record)) if times else None,
            record.status.name,
            record_detail(record, notes=True),
        )
        for sequence, record in history
    ]

    def text() -> str:
        first = history[0][1]
        lines = [
            f"{shown_id(session, invocation)} ({first.tool_name}, tier {first.tier.value}) "
            f"in session {one_line(session)}",
            table(["sequence", "recorded at", "status", "detail"], rows, squeeze=("detail",)),
        ]
        if not times:
            lines.insert(1, NO_TIMES)
        if refused:
            lines.append(f"{counted(len(refused), 'event')} about it refused by the lifecycle:")
            lines.extend(f"  {error}" for _, error in refused)
        lines.extend(arguments_text(first))
        if talk is not None:
            share = talk.spending.calls.get(invocation)
            lines.append(
                ("tokens: none recorded" if talk.said else "tokens: none in the store")
                if share is None
                else f"tokens: {spent_text(share)} (its share of its message's), cost "
                f"{cost_text(share, prices)}"
            )
        if led is not None:
            lines.extend(lead_up_text(led))
        return "\n".join(lines)

    document = history_document(session, invocation, history, refused, times=times, lead_up=led)
    document["spent"] = spent
    emit(args, document, text)
    return 0


def _made_at(record: ToolInvocationRecord) -> Any:
    """When the event that made this version of the record was recorded."""
    if record.status is ToolInvocationStatus.REQUESTED:
        return record.requested_at
    if record.status is ToolInvocationStatus.STARTED:
        return record.started_at
    return record.completed_at


def cmd_diff(args: argparse.Namespace) -> int:
    with opened_session(args, lenient=True) as (store, session, view):
        times = times_recorded(store, session)
        a, b = in_range(view, args.a, "A"), in_range(view, args.b, "B")
        if a > b:
            raise CliError(f"A={a} is after B={b}: diff goes forward in time")
        counts = answered(view.diff_summary(a, b), session, lenient=True)
        limit = None if args.limit == 0 else args.limit
        changes = () if args.summary else answered(view.diff(a, b, limit), session, lenient=True)
    heading = (
        f"session {one_line(session)} from sequence {a} to {b}: "
        f"{counted(counts.total, 'invocation')} added or changed"
    )
    if args.summary:
        emit(args, diff_summary_document(session, counts), lambda: summary_text(heading, counts))
        return 0
    document = diff_document(session, a, b, changes, times=times)
    document.update(total=counts.total, limit=limit)

    def text() -> str:
        lines = [heading + (":" if changes else "")]
        if len(changes) < counts.total:
            lines[0] = (
                f"{heading}; the first {len(changes):,} (--limit 0 shows all, "
                "--summary counts them):"
            )
        if changes:
            lines.append(changes_table(changes, session))
        return "\n".join(lines)

    emit(args, document, text)
    return 0


def summary_text(heading: str, counts: DiffSummary) -> str:
    """``diff --summary``: the counts in a few lines, the busiest tools first."""
    statuses = ", ".join(f"{n:,} {s}" for s, n in by_status(counts.counts).items() if n)
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
