"""``correx-tools push``: every session of SOURCE sent to the team's PostgreSQL store, only
what it does not hold yet (`correx_tools.shell.team.push`).

A session is named there by the machine and its own id (``MACHINE/ID``), labelled with
the machine and the user (the host's and the login's names unless ``--machine`` and
``--user`` say otherwise). A session whose transcript changed other than by growing is
refused in one line, unless ``--replace`` sends it anew. ``--follow`` keeps pushing as
agents write (`correx_tools.shell.team.follow`).
"""

from __future__ import annotations

import argparse
import contextlib
import getpass
import json
import socket
import sqlite3
import sys
import time
from collections.abc import Callable

from ....core.catalog.machines import name_problem
from ...stores.addresses import POSTGRES_SCHEMES
from ...stores.port import EventStore, StoreLayoutError
from ...stores.postgres.store import PostgresEventStore
from ...stores.sql.store import SqlEventStore
from ...stores.sqlite.store import SQLiteEventStore
from ...team.follow import INTERVAL
from ...team.push import Pushed, PushFailed, Pushing, push
from .. import arguments
from ..errors import CliError
from ..output.readable import counted
from ..output.render import emit, in_line
from ..output.terminal import Progress
from ..sources.options import closed_at_the_end
from ..sources.stores import open_source_or_agents, open_store, redact
from ..sources.transcripts import followed_cache, is_transcript_source, note, tell


def add_arguments(parser: argparse.ArgumentParser) -> None:
    """The arguments of ``correx-tools push``."""
    arguments.add_source(parser, optional=True)
    parser.add_argument(
        "--to", metavar="URL", required=True,
        help="the team's store: a postgresql:// URL or libpq connection string (its password "
        "is better given by PGPASSWORD, ~/.pgpass or a service file)",
    )  # fmt: skip
    parser.add_argument(
        "--machine", metavar="NAME", help="the name of this machine (default: the host's name)"
    )
    parser.add_argument(
        "--user", metavar="NAME", help="the name of who pushes (default: the login name)"
    )
    parser.add_argument(
        "--replace", action="store_true",
        help="send anew a session whose transcript changed other than by growing since it was "
        "pushed (the role needs DELETE on the events)",
    )  # fmt: skip
    parser.add_argument(
        "--follow", action="store_true",
        help="keep pushing as agents write, each new event in the store within seconds, until "
        "stopped (Ctrl-C); a lost server is retried",
    )  # fmt: skip


def pushing_of(args: argparse.Namespace) -> Pushing:
    """Who pushes, as the arguments say (or the host's and the login's names)."""
    machine = args.machine if args.machine is not None else socket.gethostname()
    user = args.user if args.user is not None else _login()
    for name, option in ((machine, "--machine"), (user, "--user")):
        problem = name_problem(name, option.removeprefix("--"))
        if problem is not None:
            raise CliError(f"{option}: {in_line(problem)}")
    return Pushing(machine=machine, user=user, replace=args.replace)


def _login() -> str:
    try:
        return getpass.getuser()
    except (OSError, KeyError):
        return "unknown"


def team_store(url: str) -> PostgresEventStore:
    """The team's store ``--to`` names, opened to write (its tables made if missing)."""
    if not url.startswith(POSTGRES_SCHEMES):
        raise CliError(
            f"--to {redact(url)}: the team's store is a PostgreSQL database; give a "
            "postgresql:// URL (postgresql:///?service=NAME for a service file)"
        )
    store = open_store(url, create=True)
    assert isinstance(store, PostgresEventStore)  # a postgresql:// URL opens one
    return store


def sending_store(source: str | None) -> tuple[SqlEventStore, str]:
    """The store SOURCE names, and how to name it: a transcript's or folder's cache, or a
    database store."""
    store, label = open_source_or_agents(source)
    if not isinstance(store, SqlEventStore):
        raise CliError(f"{label}: push sends from transcripts or a SQLite or PostgreSQL store; "
                       f"copy this one into SQLite first: correx-tools import {label} "
                       "FILE.sqlite")  # fmt: skip
    return store, label


def transcripts_of(store: EventStore) -> Callable[[str], str]:
    """How a refusal names a session: its transcript file, where the store is a cache of
    transcripts, else the session itself (the cache's table read when first asked)."""
    files: dict[str, str] | None = None

    def where(session: str) -> str:
        nonlocal files
        if files is None:
            files = _files(store)
        return files.get(session, f"session {session}")

    return where


def _files(store: EventStore) -> dict[str, str]:
    if not isinstance(store, SQLiteEventStore):
        return {}
    from ...transcripts.cache.manifest import TABLE  # noqa: PLC0415 - on use

    uri = f"{store.path.resolve().as_uri()}?mode=ro"
    with contextlib.closing(sqlite3.connect(uri, uri=True)) as cache:
        try:
            rows = cache.execute(f"SELECT path, sessions FROM {TABLE}").fetchall()
        except sqlite3.Error:
            return {}  # not a cache: a store of its own
    return {session: path for path, sessions in rows for session in json.loads(sessions)}


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools push``; the exit status."""
    pushing = pushing_of(args)
    team = team_store(args.to)
    if args.follow:
        return _follow(args, team, pushing)
    source, label = sending_store(args.source)
    done = push_once(source, team, pushing, label)
    return report(args, done, label, pushing)


def _follow(args: argparse.Namespace, team: PostgresEventStore, pushing: Pushing) -> int:
    """Push again and again until stopped (`team.follow`); 0 once stopped with Ctrl-C."""
    from ...team.follow import follow  # noqa: PLC0415 - the loop, only when following

    step: Callable[[], Pushed]
    if args.source is None or is_transcript_source(args.source):
        cache, label = followed_cache(args.source or None)
        source = SQLiteEventStore(cache.path, read_only=True)
        closed_at_the_end(source)
        where = transcripts_of(source)

        def step() -> Pushed:
            tell(cache.look())
            return push(source, team, pushing, where=where)
    else:
        store, label = sending_store(args.source)
        where = transcripts_of(store)

        def step() -> Pushed:
            return push(store, team, pushing, where=where)

    note(f"following {label}: pushing to {redact(args.to)} as {pushing.machine} "
         f"({pushing.user}) every {INTERVAL:g} s; Ctrl-C stops")  # fmt: skip
    try:
        follow(step, say=note, sleep=time.sleep)
    except KeyboardInterrupt:
        return 0
    finally:
        if args.source is None or is_transcript_source(args.source):
            cache.close()
    return 0


def push_once(source: SqlEventStore, team: PostgresEventStore, pushing: Pushing,
              label: str) -> Pushed:  # fmt: skip
    """One push of ``source``, a bar on a terminal; a failure is a one-line error."""
    try:
        with Progress(f"pushing {label} (events)", None, sys.stderr) as bar:
            return push(source, team, pushing, where=transcripts_of(source), progress=bar.advance)
    except PushFailed as failed:
        raise CliError(f"{failed}; nothing more was pushed (run push again)") from None
    except StoreLayoutError as error:
        raise CliError(str(error)) from None


def report(args: argparse.Namespace, done: Pushed, label: str, pushing: Pushing) -> int:
    """What the push did, as a line (each refused session on a line of its own) or JSON."""
    for _, reason in done.refused:
        print(f"correx-tools push: {in_line(reason)}", file=sys.stderr)
    emit(
        args,
        {"source": label, "to": redact(args.to), "machine": pushing.machine,
         "user": pushing.user, "sent": done.sent, "events": done.events,
         "unchanged": done.unchanged, "refused": [s for s, _ in done.refused]},
        lambda: (
            f"pushed {counted(done.events, 'event')} of {counted(len(done.sent), 'session')} "
            f"from {pushing.machine} to {redact(args.to)}; {done.unchanged:,} unchanged"
            + (f", {counted(len(done.refused), 'session')} refused (above)"
               if done.refused else "")
        ),
    )  # fmt: skip
    return 1 if done.refused else 0
