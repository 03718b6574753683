"""``compare SOURCE S1 S2 S3 ...`` (or ``--match PATTERN``): the tree of where many sessions
of one task split, with how many of each branch's runs ended with a failure.

The sessions are read one after another, one view each, and only their calls'
keys and outcomes are kept (`comparing.read_calls`); the call that begins each
branch is read again from the first of its runs.
"""

from __future__ import annotations

import argparse
from collections.abc import Callable
from fnmatch import fnmatchcase
from functools import partial

from ....core.replay.comparison import Calls
from ....core.tools.ids import SessionId
from ...replay.branching import runs_tree
from ...replay.comparing import Side, read_calls, side_of
from ...replay.view import StreamFailed
from ...stores.port import EventStore
from ...transcripts.description import session_description
from ..errors import CliError
from ..output.render import emit
from ..output.tree_text import tree_text
from ..sources.loading import answered, find_session, repository_for
from ..sources.stores import open_store


def chosen_sessions(store: EventStore, args: argparse.Namespace) -> list[SessionId]:
    """The sessions named (each as every command takes it), then those ``--match`` picks
    (a shell-style pattern over the ids: ``run-*``), each once, in that order."""
    chosen = [find_session(store, name, args.source) for name in args.sessions]
    if args.match is not None:
        matched = [s for s in store.sessions() if fnmatchcase(s, args.match)]
        if not matched:
            raise CliError(f"{args.source}: no session matches {args.match!r}")
        chosen += matched
    return list(dict.fromkeys(chosen))


def calls_of(*, lenient: bool) -> Callable[[Side], Calls]:
    """How the command reads a session's calls: one line saying why one cannot be read."""

    def read(side: Side) -> Calls:
        session = SessionId(side.session)
        try:
            return answered(read_calls(side), session, lenient=lenient).calls
        except StreamFailed as failed:
            raise CliError(f"session {session!r}: {failed.error.message}") from None

    return read


def cmd_compare_many(args: argparse.Namespace) -> int:
    """The tree of where the sessions split, as a tree of text or one JSON document."""
    if args.with_source is not None:
        raise CliError("--with compares two sessions: give exactly A and B with it")
    store = open_store(args.source)
    sessions = chosen_sessions(store, args)
    if len(sessions) < 2:
        raise CliError(f"compare needs two different sessions or more; {len(sessions)} found")
    repository = repository_for(store, args.source, lenient=args.lenient)
    sides = [
        side_of(args.source, session, partial(repository.view, session),
                session_description(store, session))
        for session in sessions
    ]  # fmt: skip
    document = {"source": args.source, **runs_tree(sides, calls_of(lenient=args.lenient))}
    emit(args, document, lambda: tree_text(document))
    return 0
