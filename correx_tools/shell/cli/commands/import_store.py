"""``correx-tools import``: every session of SOURCE copied into DEST, in one transaction."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator, Sequence
from contextlib import ExitStack

from returns.result import Success

from ....core.lifecycle.events import StoredEvent
from ....core.tools.ids import SessionId
from ...stores.fanout import Workers
from ...stores.port import (
    EventStore,
    IndexedStore,
    LocatedStore,
    SequencedStore,
)
from ...stores.sql.copy_parts import CopiedSession, copy_sessions
from ...stores.sql.store import SqlEventStore
from .. import arguments
from ..errors import CliError
from ..output.readable import counted
from ..output.render import emit
from ..output.terminal import Progress
from ..sources.options import refused_files
from ..sources.staging import writing_to
from ..sources.stores import open_store, reading_whole


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools import``."""
    arguments.add_source(parser)
    parser.add_argument("dest", metavar="DEST", help=arguments.STORE_HELP)
    arguments.add_workers_argument(parser, "read, check and index", among="this one writing them")


def _copies(
    source: EventStore,
    dest: EventStore,
    sessions: Sequence[SessionId],
    *,
    workers: int,
    bar: Progress,
    held: ExitStack,
) -> list[CopiedSession] | None:
    """The sessions to copy whole, a large one's parts read by ``workers`` processes
    (`copy_parts`); ``None`` unless both stores are databases and more than one works."""
    if workers < 2 or not isinstance(dest, SqlEventStore):
        return None
    if not (isinstance(source, SqlEventStore) and isinstance(source, LocatedStore)):
        return None
    runner = held.enter_context(Workers(source.address, workers))
    return copy_sessions(source, sessions, runner, dest.layout, bar.advance)


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools import``; the exit status."""
    source = open_store(args.source)
    sessions = source.sessions()
    total = sum(map(source.last_sequence, sessions)) if isinstance(source, SequencedStore) else None
    copied: dict[str, int] = {}

    def events(bar: Progress) -> Iterator[StoredEvent]:
        # Streamed: read, decoded from each event's own JSON, and written as they come.
        for session in sessions:
            read = (
                source.read_decoded(session)
                if isinstance(source, IndexedStore)
                else source.read(session)
            )
            copied[session] = 0
            for event in bar.wrap(iter(read), close=False):
                copied[session] += 1
                yield event

    with (
        reading_whole(source, args.source, after="; nothing was imported"),
        Progress(f"copying {args.source}", total, sys.stderr) as bar,
        writing_to(args.dest) as staging,
        ExitStack() as held,
    ):
        # One call: every session lands in one transaction, or none does.
        copies = _copies(
            source,
            staging.store,
            sessions,
            workers=arguments.workers_of(args),
            bar=bar,
            held=held,
        )
        if copies is not None:
            assert isinstance(staging.store, SqlEventStore)  # as `_copies` found it
            result = staging.store.import_copies(copies)
            copied.update((copy.session_id, copy.copied) for copy in copies)
        else:
            result = staging.store.import_events(events(bar))
        if not isinstance(result, Success):
            staging.discard()
            raise CliError(f"{args.dest}: {result.failure().message}; nothing was imported")
    count = result.unwrap()
    refused = refused_files()
    emit(
        args,
        {"source": args.source, "dest": args.dest, "sessions": copied, "events": count,
         "refused_files": refused},
        lambda: (
            f"copied {counted(count, 'event')} in {counted(len(copied), 'session')} "
            f"from {args.source} to {args.dest}"
            + (f"; {counted(refused, 'file')} refused (listed above), not copied"
               if refused else "")
        ),
    )  # fmt: skip
    return 1 if refused else 0
