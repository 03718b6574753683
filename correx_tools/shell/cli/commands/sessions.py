"""``correx-tools sessions``: the sessions of a SOURCE, each with its counts, its agent and
its conversation."""

from __future__ import annotations

import argparse
from typing import Any

from ...replay.documents import (
    session_row,
)
from ...replay.ends import session_times
from ...transcripts.description import description_json, session_description
from .. import arguments
from ..output.lead_up_text import talk_of, talk_table
from ..output.render import (
    emit,
    table,
)
from ..sources.loading import (
    answered,
    repository_for,
)
from ..sources.stores import open_store

SESSION_COLUMNS = ("session", "agent", "project", "events", "invocations", "completed",
                   "failed", "exit ≠ 0", "rejected", "open", "refused", "first event (UTC)",
                   "last event (UTC)")  # fmt: skip


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools sessions``."""
    arguments.add_source(parser)


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools sessions``; the exit status."""
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
