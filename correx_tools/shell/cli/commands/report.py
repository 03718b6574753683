"""``correx-tools report``: a session as one self-contained HTML page to travel through."""

from __future__ import annotations

import argparse
import re
import sys
from pathlib import Path

from ....core.report.redaction import Redaction
from ...report.conversation import conversation_data
from ...report.page import page_document, write_page
from ...transcripts.description import session_description
from .. import arguments
from ..errors import CliError
from ..output.files import STANDARD_OUTPUT, output_argument, whole_file
from ..output.readable import counted
from ..output.render import emit, one_line
from ..sources.loading import answered
from ..sources.prices import prices_of
from ..sources.streaming import streamed_session


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools report``; the exit status."""
    try:
        redaction = Redaction.with_patterns(args.redact)
    except ValueError as error:
        raise CliError(str(error)) from None
    if args.output == STANDARD_OUTPUT and args.json:
        raise CliError("-o - writes the page itself to standard output; --json describes a file")
    prices = prices_of(args)
    with streamed_session(args) as (store, session, _, view):
        described = session_description(store, session)
        times = described is None or described.times_recorded
        imported = described is not None
        data = answered(
            page_document(view, redaction=redaction, times=times, imported=imported),
            session, lenient=args.lenient,
        )  # fmt: skip
        data.update(conversation_data(store, session, data["last"], imported=imported,
                                      times=times, redaction=redaction, prices=prices))  # fmt: skip
    if args.output == STANDARD_OUTPUT:  # the page alone, for a pipe
        write_page(sys.stdout.buffer, data)
        sys.stdout.flush()
        return 0
    # The default name is redacted too: a file name travels with the file.
    path = Path(args.output) if args.output else Path(default_name(redaction.text(session)))
    with whole_file(path) as out:
        size = write_page(out, data)
    invocations = len(data["invocations"]["ids"])
    document = {
        "path": str(path),
        "bytes": size,
        "session_id": session,
        "events": data["last"],
        "invocations": invocations,
        "details": len(data["details"]),
        "refused": data["refused"]["total"],
    }
    emit(
        args,
        document,
        lambda: (
            f"wrote {path} ({size / 1e6:.1f} MB): session {one_line(session)}, "
            f"{counted(data['last'], 'event')}, {counted(invocations, 'invocation')}, "
            f"{len(data['details']):,} with arguments and receipts"
        ),
    )
    return 0


def default_name(session: str) -> str:
    """``report-<session>.html``, with anything a file name should not hold made ``_``."""
    return f"report-{re.sub(r'[^A-Za-z0-9._-]', '_', session)[:100]}.html"


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools report``."""
    arguments.add_source(parser)
    arguments.add_session(parser)
    parser.add_argument(
        "-o",
        "--output",
        metavar="FILE",
        type=output_argument,
        help="the page to write, whole or not at all (default: report-SESSION.html; - for "
        "standard output)",
    )
    arguments.add_lenient_argument(parser)
    arguments.add_redact_argument(parser)
    arguments.add_prices_argument(parser)
