"""``correx-tools import-transcript``: a transcript another agent wrote, as a session."""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from returns.result import Success

from ..stores.addresses import POSTGRES_SCHEMES
from ..transcripts.importing import FORMATS, import_bytes
from .errors import CliError
from .render import emit
from .sources import close_store, open_store, read_file, redact, remove_new_store
from .terminal import Progress


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools import-transcript``."""
    parser.add_argument("file", metavar="FILE", help="the transcript (- reads standard input)")
    parser.add_argument(
        "dest", metavar="DEST", help="a SQLite file, a .jsonl log or a postgresql:// URL"
    )
    parser.add_argument(
        "--format",
        choices=("auto", *FORMATS),
        default="auto",
        help="the transcript's format (default: recognised from its content)",
    )
    parser.add_argument(
        "--session",
        metavar="NAME",
        help="the session's name (default: the transcript's own session id, or the file's name)",
    )


def cmd_import_transcript(args: argparse.Namespace) -> int:
    data = read_file(args.file)
    source = "standard input" if args.file == "-" else args.file
    name = "stdin" if args.file == "-" else Path(args.file).stem
    fresh = not args.dest.startswith(POSTGRES_SCHEMES) and not Path(args.dest).exists()
    store = open_store(args.dest, create=True)
    with Progress("converting calls", None, sys.stderr) as bar:
        result = import_bytes(
            data, source, store, name=name, format=args.format, session=args.session,
            progress=bar.update,
        )  # fmt: skip
    if not isinstance(result, Success):
        close_store(store)
        if fresh:
            remove_new_store(Path(args.dest))
        raise CliError(f"{result.failure()}; nothing was imported")
    done = result.unwrap()
    statuses = {status: count for status, count in done.statuses.items() if count}
    document = {
        "file": source,
        "dest": redact(args.dest),
        "format": done.format,
        "session_id": done.session_id,
        "invocations": done.invocations,
        "events": done.events,
        "statuses": dict(done.statuses),
        "in_flight": done.in_flight,
        "already_imported": done.already_imported,
    }

    def text() -> str:
        counts = ", ".join(f"{count} {status}" for status, count in statuses.items()) or "none"
        if done.already_imported:
            head = f"{source}: already imported as session {done.session_id}; nothing written"
        else:
            head = (
                f"imported {source} ({done.format}) into {redact(args.dest)} as session "
                f"{done.session_id}: {done.events} events"
            )
        lines = [head, f"{done.invocations} invocations: {counts}"]
        if done.in_flight:
            lines.append(f"{done.in_flight} still in flight at the end of the transcript")
        return "\n".join(lines)

    emit(args, document, text)
    return 0
