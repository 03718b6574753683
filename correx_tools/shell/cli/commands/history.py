"""``correx-tools history``: every version of one invocation's record, with what led to it."""

from __future__ import annotations

import argparse
from typing import Any

from ....core.lifecycle.record import ToolInvocationRecord
from ....core.lifecycle.status import ToolInvocationStatus
from ...replay.documents import history_document, refused_about
from ...replay.lead_up import lead_up_in, request_sequence
from ...replay.spent import call_spent_json, talked_if_any
from ...stores.codec.envelope import iso_time
from ...transcripts.description import session_description
from .. import arguments
from ..output.lead_up_text import arguments_text, lead_up_text
from ..output.readable import counted
from ..output.render import (
    NO_TIMES,
    emit,
    one_line,
    record_detail,
    shown_id,
    table,
)
from ..output.tokens_text import cost_text, spent_text
from ..sources.loading import (
    answered,
    find_invocation,
    opened_session,
    times_recorded,
)
from ..sources.prices import prices_of


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools history``."""
    arguments.add_source(parser, optional=True)
    arguments.add_session(parser)
    parser.add_argument("invocation", metavar="INVOCATION", help=arguments.INVOCATION_HELP)
    arguments.add_prices_argument(parser)


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools history``; the exit status."""
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
