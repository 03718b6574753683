"""``compare SOURCE S1 S2 S3 ...`` (or ``--match PATTERN``): the tree of where many sessions
of one task split, with how many of each branch's runs ended with a failure.

The sessions are read one after another, one view each, and only their calls'
keys and outcomes are kept (`comparing.read_calls`); the call that begins each
branch is read again from the first of its runs.
"""

from __future__ import annotations

import argparse
from fnmatch import fnmatchcase
from functools import partial
from typing import Any

from ....core.replay.comparison import Calls
from ....core.tools.ids import SessionId
from ...replay.branching import runs_tree
from ...replay.comparing import Side, read_calls
from ...replay.view import StreamFailed
from ...stores.port import EventStore
from ...transcripts.description import session_description
from ..errors import CliError
from ..output.readable import counted, cut_middle
from ..output.render import emit, one_line
from ..sources.loading import answered, find_session, repository_for
from ..sources.stores import open_store

BRIEF = 60


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


def cmd_compare_many(args: argparse.Namespace) -> int:
    """The tree of where the sessions split, as a tree of text or one JSON document."""
    if args.with_source is not None:
        raise CliError("--with compares two sessions: give exactly A and B with it")
    store = open_store(args.source)
    sessions = chosen_sessions(store, args)
    if len(sessions) < 2:
        raise CliError(f"compare needs two different sessions or more; {len(sessions)} found")
    repository = repository_for(store, args.source, lenient=args.lenient)
    sides = []
    for session in sessions:
        described = session_description(store, session)
        sides.append(
            Side(
                source=args.source,
                session=session,
                open=partial(repository.view, session),
                cwd=None if described is None else described.about.cwd,
                times_recorded=described is None or described.times_recorded,
            )
        )

    def read(side: Side) -> Calls:
        session = SessionId(side.session)
        try:
            return answered(read_calls(side), session, lenient=args.lenient).calls
        except StreamFailed as failed:
            raise CliError(f"session {session!r}: {failed.error.message}") from None

    document = {"source": args.source, **runs_tree(sides, read)}
    emit(args, document, lambda: _text(document))
    return 0


def _text(document: dict[str, Any]) -> str:
    runs = document["runs"]
    lines = [f"{counted(len(runs), 'run')}, {document['failed']:,} ended with a failure"]
    stack: list[tuple[dict[str, Any], str, str]] = [(document["tree"], "", "")]
    while stack:
        node, lead, rest = stack.pop()
        lines.append(lead + _said(node))
        children = node["children"]
        for number, child in reversed(list(enumerate(children))):
            last = number == len(children) - 1
            stack.append(
                (child, rest + ("└─ " if last else "├─ "), rest + ("   " if last else "│  "))
            )
    return "\n".join(lines)


def _said(node: dict[str, Any]) -> str:
    runs = node["runs"]
    said = f"{counted(runs, 'run')} ({node['failed']:,} failed)"
    call = node["call"]
    if call is not None:
        arguments = call["arguments"] or {}
        words = " ".join(str(v) for v in arguments.values() if isinstance(v, str | int | float))
        brief = cut_middle(" ".join(words.split()), BRIEF)
        said += f" call {node['start'] + 1:,}: {call['tool_name']} {brief}".rstrip()
        if node["shared"] > 1:
            alike = "alike" if runs > 1 else "more"
            said += f", then {counted(node['shared'] - 1, 'call')} {alike}"
    elif node["shared"] == 0 and node["start"] == 0:
        said += ": they part at their first call"
    if node["ended"]:
        ended = ", ".join(one_line(name) for name in node["ended"][:3])
        more = len(node["ended"]) - 3
        said += f"; ended here: {ended}" + (f" and {more:,} more" if more > 0 else "")
    return said
