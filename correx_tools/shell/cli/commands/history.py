"""``correx-tools history``: every version of one invocation's record, what the call said
back (the end of its output, or its reason), and what led to it.

What the session holds is masked as the debugger masks it unless ``--unmasked``. A start
an import stood in for (the transcript records none) is said to be not recorded, never
stamped with the request's time.
"""

from __future__ import annotations

import argparse
from typing import Any

from ....core.lifecycle.record import ToolInvocationRecord
from ....core.lifecycle.status import ToolInvocationStatus
from ....core.replay.recorded import recorded_start
from ...replay.documents import history_document, refused_about
from ...replay.lead_up import lead_up_in, request_sequence
from ...replay.spent import call_spent_json, talked_if_any
from ...stores.codec.envelope import iso_time
from ...transcripts.description import session_description
from .. import arguments
from ..output.calls_table import notes_of, record_detail, shown_id
from ..output.lead_up_text import arguments_text, lead_up_text, output_text
from ..output.readable import counted
from ..output.render import NO_TIMES, emit, one_line
from ..output.tables import Column, table
from ..output.tokens_text import cost_text, spent_text
from ..sources.loading import answered, find_invocation, opened_session, times_recorded
from ..sources.prices import prices_of
from ..sources.shown import redaction_of

NOT_RECORDED = "not recorded"
"""What the table says of a start the transcript does not record."""
COLUMNS = (
    Column("sequence"),
    Column("recorded at"),
    Column("status"),
    Column("detail", fit="cut", least=12, give=1),
)


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools history``."""
    arguments.add_source(parser, optional=True)
    arguments.add_session(parser)
    parser.add_argument("invocation", metavar="INVOCATION", help=arguments.INVOCATION_HELP)
    arguments.add_prices_argument(parser)
    parser.add_argument(
        "--full",
        action="store_true",
        help="print the call's whole output (its end only by default)",
    )
    arguments.add_shown_arguments(parser)


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
    redaction = redaction_of(args)
    spent = call_spent_json(talk, invocation, redaction, prices=prices)
    masked = (lambda text: text) if redaction is None else redaction.text
    rows = [
        (
            sequence,
            (_when(record, imported=imported) if times else None),
            record.status.name,
            masked(record_detail(record, notes=True)),
        )
        for sequence, record in history
    ]

    def text() -> str:
        first, last = history[0][1], history[-1][1]
        lines = [
            f"{shown_id(session, invocation)} ({masked(first.tool_name)}, tier "
            f"{first.tier.value}) in session {one_line(session)}",
            table(COLUMNS, rows, wide=args.wide),
        ]
        if not times:
            lines.insert(1, NO_TIMES)
        if refused:
            lines.append(f"{counted(len(refused), 'event')} about it refused by the lifecycle:")
            lines.extend(f"  {masked(error)}" for _, error in refused)
        lines.extend(arguments_text(first, redaction))
        lines.extend(masked(note) for note in notes_of(last))
        lines.extend(output_text(last, redaction, full=args.full))
        if talk is not None:
            share = talk.spending.calls.get(invocation)
            lines.append(
                ("tokens: none recorded" if talk.said else "tokens: none in the store")
                if share is None
                else f"tokens: {spent_text(share)} (its share of its message's), cost "
                f"{cost_text(share, prices)}"
            )
        if led is not None:
            lines.extend(lead_up_text(led, redaction))
        return "\n".join(lines)

    document = history_document(
        session, invocation, history, refused, times=times, imported=imported, lead_up=led,
        redaction=redaction,
    )  # fmt: skip
    document["spent"] = spent
    emit(args, document, text)
    return 0


def _when(record: ToolInvocationRecord, *, imported: bool) -> str | None:
    """When the version was recorded; a start the transcript does not record, said so."""
    stood_in = recorded_start(record.requested_at, record.started_at, imported=imported) is None
    if record.status is ToolInvocationStatus.STARTED and stood_in:
        return NOT_RECORDED
    return iso_time(_made_at(record))


def _made_at(record: ToolInvocationRecord) -> Any:
    """When the event that made this version of the record was recorded."""
    if record.status is ToolInvocationStatus.REQUESTED:
        return record.requested_at
    if record.status is ToolInvocationStatus.STARTED:
        return record.started_at
    return record.completed_at
