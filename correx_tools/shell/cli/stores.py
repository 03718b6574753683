"""The commands that copy, create or replay whole stores: import, init-db and replay-all."""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import ExitStack
from typing import Any

from returns.result import Success

from ...core.lifecycle.events import StoredEvent
from ...core.lifecycle.state import ToolState
from ...core.replay.fold import Replay
from ...core.replay.projection import ToolProjector
from ...core.tools.ids import SessionId
from ..replay.parallel import replay_all
from ..stores.addresses import address_of
from ..stores.fanout import WorkerLost, Workers
from ..stores.jsonl import JsonlEventLog
from ..stores.port import (
    EventStore,
    IndexedStore,
    LocatedStore,
    Reindexed,
    SequencedStore,
    StoreReadError,
)
from ..stores.sql.copy_parts import CopiedSession, copy_sessions
from ..stores.sql.store import SqlEventStore
from .errors import CliError
from .output.readable import counted
from .output.render import emit, table
from .output.terminal import Progress
from .sources.staging import writing_to
from .sources.stores import close_store, open_store, redact
from .sources.transcripts import refused_files
from .verify import add_workers_argument, workers_of


def add_import_arguments(parser: argparse.ArgumentParser) -> None:
    """``import``'s ``--workers``."""
    add_workers_argument(parser, "read, check and index", among="this one writing them")


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


def cmd_import(args: argparse.Namespace) -> int:
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

    try:
        with (
            Progress(f"copying {args.source}", total, sys.stderr) as bar,
            writing_to(args.dest) as staging,
            ExitStack() as held,
        ):
            # One call: every session lands in one transaction, or none does.
            copies = _copies(
                source, staging.store, sessions, workers=workers_of(args), bar=bar, held=held
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
    except StoreReadError as error:
        raise CliError(f"{args.source}: {error.error}; nothing was imported") from None
    except WorkerLost as lost:
        raise CliError(f"{args.source}: {lost}; nothing was imported") from None
    finally:
        close_store(source)
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


def cmd_init_db(args: argparse.Namespace) -> int:
    store = open_store(args.source, create=True)
    if isinstance(store, JsonlEventLog):
        try:
            next(iter(store.events()), None)  # its first line says whether it is a log
        except StoreReadError as error:
            raise CliError(
                f"{redact(args.source)}: holds something other than an event log "
                f"({error.error.message}); init-db leaves it as it is"
            ) from None
        store.path.touch()
    emit(
        args,
        {"source": redact(args.source), "ready": True},
        lambda: f"{redact(args.source)}: ready",
    )
    return 0


def session_summary(replay: Replay[ToolState]) -> dict[str, int]:
    """What ``replay-all`` reports of a session (computed in the worker process)."""
    return {
        "events": replay.last_sequence,
        "invocations": len(replay.state),
        "refused_events": len(replay.quarantined),
    }


def cmd_replay_all(args: argparse.Namespace) -> int:
    store = open_store(args.source)
    started = time.perf_counter()
    outcome = replay_all(
        store,
        ToolProjector(),
        workers=args.workers,
        strict=not args.lenient,
        summarize=session_summary,
    )
    seconds = time.perf_counter() - started
    rows: list[dict[str, Any]] = [
        {"session_id": session, **summary, "error": None}
        for session, summary in outcome.summaries.items()
    ]
    rows += [
        {
            "session_id": s,
            "events": None,
            "invocations": None,
            "refused_events": None,
            "error": e.message,
        }
        for s, e in outcome.failures.items()
    ]
    rows.sort(key=lambda row: str(row["session_id"]))
    events = sum(int(r["events"] or 0) for r in rows)
    document = {
        "workers": args.workers,
        "seconds": round(seconds, 3),
        "events": events,
        "sessions": rows,
    }
    emit(
        args,
        document,
        lambda: (
            f"replayed {len(rows) - len(outcome.failures):,} of {counted(len(rows), 'session')} "
            f"({counted(events, 'event')}) with {counted(args.workers, 'worker')} "
            f"in {seconds:.2f} s\n"
            + table(
                ["session", "events", "invocations", "refused", "error"],
                [
                    (
                        r["session_id"],
                        r["events"],
                        r["invocations"],
                        r["refused_events"],
                        r["error"],
                    )
                    for r in rows
                ],
                squeeze=("session", "error"),
            )
        ),
    )
    if outcome.failures and not args.json:
        for session, error in sorted(outcome.failures.items()):
            print(f"correx-tools replay-all: error: {session}: {error.message}", file=sys.stderr)
        if not args.lenient:
            print(
                f"correx-tools replay-all: {len(outcome.failures)} of {len(rows)} sessions "
                "failed; --lenient skips the events the lifecycle refuses",
                file=sys.stderr,
            )
    return 1 if outcome.failures else 0


def _reindex(store: IndexedStore, args: argparse.Namespace, progress: Any) -> Reindexed:
    """The store's index rebuilt, its large sessions in parts by ``--workers`` processes."""
    workers = workers_of(args)
    if workers < 2 or not (isinstance(store, SqlEventStore) and isinstance(store, LocatedStore)):
        return store.reindex(progress=progress, accept_edits=args.accept_edits)
    try:
        with Workers(store.address, workers) as runner:
            return store.reindex(progress=progress, accept_edits=args.accept_edits, runner=runner)
    except WorkerLost as lost:
        raise CliError(f"{redact(args.source)}: {lost}") from None


def cmd_reindex(args: argparse.Namespace) -> int:
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
