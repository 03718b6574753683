"""``compare SOURCE --by-task``: an evaluation's runs by task, each task's tree of where its
runs split with how each ended, and where resolved and unresolved runs part most often.

A run's task is what its harness wrote (its outcome's); the sessions are read one
task at a time, one view each (`by_task`).
"""

from __future__ import annotations

import argparse
from functools import partial

from ...replay.by_task import tasks_document
from ...replay.comparing import Side, side_of
from ...transcripts.description import session_description
from ..errors import CliError
from ..output.render import emit
from ..output.tree_text import tasks_text
from ..sources.loading import repository_for
from ..sources.stores import open_store
from .compare_many import calls_of


def cmd_compare_tasks(args: argparse.Namespace) -> int:
    """The runs of SOURCE by task, as text or one JSON document."""
    if args.sessions or args.with_source is not None or args.match is not None:
        raise CliError("--by-task compares every session of SOURCE by its task: give no "
                       "SESSION, --match or --with beside it")  # fmt: skip
    store = open_store(args.source)
    repository = repository_for(store, args.source, lenient=args.lenient)
    tasks: dict[str, list[Side]] = {}
    without: list[str] = []
    for session in store.sessions():
        described = session_description(store, session)
        side = side_of(args.source, session, partial(repository.view, session), described)
        task = None if side.outcome is None else side.outcome.task
        if task is None:
            without.append(session)
        else:
            tasks.setdefault(task, []).append(side)
    if not tasks:
        raise CliError(f"{args.source}: no session names its task (an evaluation's runs do: "
                       "SWE-agent, mini-swe-agent, OpenHands)")  # fmt: skip
    read = calls_of(lenient=args.lenient)
    document = {"source": args.source, **tasks_document(tasks, read, without_task=without)}
    emit(args, document, lambda: tasks_text(document))
    return 0
