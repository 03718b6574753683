"""``correx-tools reindex``: rebuild a store's time-travel index from its events."""

from __future__ import annotations

import argparse
import sys
import time
from typing import Any

from ...stores.addresses import address_of
from ...stores.fanout import WorkerLost, Workers
from ...stores.port import (
    IndexedStore,
    LocatedStore,
    Reindexed,
)
from ...stores.sql.store import SqlEventStore
from .. import arguments
from ..errors import CliError
from ..output.readable import counted
from ..output.render import emit
from ..output.terminal import Progress
from ..sources.stores import close_store, open_store, redact


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools reindex``."""
    parser.add_argument("source", metavar="SOURCE", help="a SQLite file or a postgresql:// URL")
    parser.add_argument(
        "--accept-edits",
        action="store_true",
        help="index events changed after they were written as they are now (after a "
        "deliberate edit: the new index vouches for them); without it such a session keeps "
        "its index, and verify names the change",
    )
    arguments.add_workers_argument(parser, "rebuild")


def _reindex(store: IndexedStore, args: argparse.Namespace, progress: Any) -> Reindexed:
    """The store's index rebuilt, its large sessions in parts by ``--workers`` processes."""
    workers = arguments.workers_of(args)
    if workers < 2 or not (isinstance(store, SqlEventStore) and isinstance(store, LocatedStore)):
        return store.reindex(progress=progress, accept_edits=args.accept_edits)
    try:
        with Workers(store.address, workers) as runner:
            return store.reindex(progress=progress, accept_edits=args.accept_edits, runner=runner)
    except WorkerLost as lost:
        raise CliError(f"{redact(args.source)}: {lost}") from None


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools reindex``; the exit status."""
    if address_of(args.source).kind == "jsonl":
        raise CliError(f"{args.source}: a JSONL log is a plain log and keeps no index to rebuild")
    looked = open_store(args.source)  # read-only: which layout is it?
    older = isinstance(looked, IndexedStore) and looked.outdated
    close_store(looked)
    started = time.perf_counter()
    with Progress("indexing", None, sys.stderr) as bar:
        # Opening an older layout with upgrade=True upgrades and indexes it in one transaction.
        store = open_store(args.source, upgrade=True, progress=bar.update)
        if not isinstance(store, IndexedStore):
            raise CliError(f"{args.source}: keeps no index to rebuild")
        done = store.upgraded if older and store.upgraded else _reindex(store, args, bar.update)
    seconds = time.perf_counter() - started
    source = redact(args.source)
    verb = "upgraded and indexed" if older else "indexed"
    document = {
        "source": source,
        "upgraded": older,
        "events": done.events,
        "sessions": done.sessions,
        "damaged": dict(done.damaged),
        "seconds": round(seconds, 3),
    }

    def text() -> str:
        lines = [
            f"{source}: {verb} {counted(done.events, 'event')} "
            f"in {counted(done.sessions, 'session')} in {seconds:.2f} s"
        ]
        lines.extend(f"not indexed: {why}" for why in done.damaged.values())
        if done.damaged:
            lines.append(
                f"{counted(len(done.damaged), 'session')} kept the index it had: its events do "
                "not hold together (correx-tools verify names each fault)"
            )
        return "\n".join(lines)

    emit(args, document, text)
    return 1 if done.damaged else 0
