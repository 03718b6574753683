"""An evaluation's runs by task, as one document: for each task (its instance id), the tree
of where its runs split with how each ended; over all tasks, how many runs resolved their
task, and where resolved and unresolved runs of one task part most often (what
``compare FOLDER --by-task`` prints).

A run's task is its outcome's (`Outcome.task`: what its harness wrote); a session with
none is listed apart. Each task's runs are read one after another, their calls kept
only while their task's tree is made (`branching.tree_document`, each branch's call said
by its kind and target: nothing is read twice), so an evaluation of any size is
compared in the memory of its largest task. Where they part is counted by
`partings.Partings`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import Any

from ...core.replay.comparison import Calls
from ...core.replay.partings import Partings
from ...core.report.redaction import Redaction
from .branching import tree_document
from .comparing import Side

PARTINGS = 10
"""The ways resolved and unresolved runs part that the summary names, most frequent first."""


def tasks_document(
    tasks: Mapping[str, Sequence[Side]],
    read: Callable[[Side], Calls],
    *,
    without_task: Sequence[str] = (),
    redaction: Redaction | None = None,
) -> dict[str, Any]:
    """Each task's tree of where its runs (``tasks``: the sides of each task's sessions)
    split, each read by ``read``; the summary over all of them; the sessions no task
    names (``without_task``)."""
    partings = Partings()
    told = []
    verdicts = {"resolved": 0, "unresolved": 0, "not evaluated": 0}
    for task in sorted(tasks):
        sides = tasks[task]
        runs = [read(side) for side in sides]
        outcomes = [side.outcome for side in sides]
        names = [side.session for side in sides]
        document = tree_document(
            names, runs, None, redaction=redaction, outcomes=outcomes, partings=partings
        )
        del runs  # one task's calls at a time
        for outcome in outcomes:
            verdicts["not evaluated" if outcome is None else outcome.verdict] += 1
        told.append({"task": task, **document})
    return {
        "tasks": told,
        "runs": sum(verdicts.values()),
        "resolved": verdicts["resolved"],
        "unresolved": verdicts["unresolved"],
        "not_evaluated": verdicts["not evaluated"],
        "partings": [
            {"resolved_did": kinds[0], "unresolved_did": kinds[1], "pairs": pairs, "tasks": count}
            for kinds, pairs, count in partings.most(PARTINGS)
        ],
        "without_task": list(without_task),
    }
