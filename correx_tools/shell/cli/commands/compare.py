"""``compare``: where two sessions of one task part ways, and what differed beside each call.

``correx-tools compare SOURCE A B`` compares two sessions of one source;
``--with SOURCE2`` reads B from another one (another store, another agent's
transcript). Three sessions or more (or ``--match``) are told as the tree of where
they split (`compare_many`); ``--by-task``, every session of SOURCE by its task
(`compare_tasks`). Each session is named as every other command takes it (its id, or
the start of exactly one). Both are read in one view each, strict unless
``--lenient``.
"""

from __future__ import annotations

import argparse
from functools import partial

from returns.result import Failure

from ....core.tools.ids import SessionId
from ...replay.comparing import Run, Side, compare_document, compared, read_calls, side_of
from ...replay.view import StreamFailed
from ...transcripts.description import session_description
from .. import arguments
from ..errors import CliError
from ..output.compare_text import pair_text
from ..output.render import emit
from ..sources.loading import answered, find_session, repository_for
from ..sources.shown import redaction_of
from ..sources.stores import open_store
from .compare_many import cmd_compare_many
from .compare_tasks import cmd_compare_tasks


def add_arguments(compare: argparse.ArgumentParser) -> None:
    """The arguments of ``compare``."""
    arguments.add_source(compare)
    compare.add_argument(
        "sessions",
        nargs="*",
        metavar="SESSION",
        help=f"two sessions, A and B (B read from --with if given); three or more (or --match) "
        f"for the tree of where they split. Each is {arguments.SESSION_HELP}",
    )
    compare.add_argument(
        "--match",
        metavar="PATTERN",
        help="also every session whose id matches this shell-style pattern (run-*), "
        "for the tree of where they split",
    )
    compare.add_argument(
        "--tree", action="store_true", help="the tree of where they split, even for two sessions"
    )
    compare.add_argument(
        "--by-task",
        action="store_true",
        help="every session of SOURCE (an evaluation's folder) grouped by its task: each "
        "task's tree of where its runs split with how they ended, and where resolved and "
        "unresolved runs part most often",
    )
    compare.add_argument(
        "--with",
        dest="with_source",
        metavar="SOURCE2",
        help="read B from this source instead (another store, another agent's transcript)",
    )
    compare.add_argument(
        "--limit",
        type=int,
        default=40,
        help="rows shown from a few before the first divergence (0: all; default: %(default)s)",
    )
    arguments.add_lenient_argument(compare)
    arguments.add_shown_arguments(compare)


def _side(source: str, name: str, *, lenient: bool) -> Side:
    store = open_store(source)
    session = find_session(store, name, source)
    repository = repository_for(store, source, lenient=lenient)
    return side_of(source, session, partial(repository.view, session),
                   session_description(store, session))  # fmt: skip


def _calls(side: Side, *, lenient: bool) -> Run:
    session = SessionId(side.session)
    try:
        calls: Run = answered(read_calls(side), session, lenient=lenient)
    except StreamFailed as failed:
        answered(Failure(failed.error), session, lenient=lenient)
        raise AssertionError("a failure is always an error") from None
    return calls


def run(args: argparse.Namespace) -> int:
    """Run ``correx-tools compare``; the exit status."""
    if args.limit < 0:
        raise CliError(f"--limit={args.limit} is negative; give 0 or more")
    if args.cache is not None and args.with_source is not None:
        raise CliError("--cache names one SOURCE's cache: give it without --with")
    names: list[str] = args.sessions
    if args.by_task:
        return cmd_compare_tasks(args)
    if args.match is not None or args.tree or len(names) > 2:
        return cmd_compare_many(args)
    if len(names) != 2:
        raise CliError(f"compare needs two sessions, A and B (or --match); {len(names)} given")
    lenient: bool = args.lenient
    a = _side(args.source, names[0], lenient=lenient)
    b = _side(args.with_source or args.source, names[1], lenient=lenient)
    found = compared(_calls(a, lenient=lenient), _calls(b, lenient=lenient))
    document = compare_document(a, b, found, limit=args.limit)
    redaction = redaction_of(args)
    if redaction is not None:
        document = redaction.masked(document)
    emit(args, document, lambda: pair_text(document, wide=args.wide))
    return 0
