"""What ``compare`` says of many runs as text: the tree of where they split, each branch
with its runs, how many failed and how many resolved their task, and the call that set it
apart; and, for an evaluation's folder (``--by-task``), each task's tree after a summary
of where resolved and unresolved runs part most often."""

from __future__ import annotations

from typing import Any

from .compare_text import outcome_said
from .readable import counted, cut_middle
from .render import one_line

BRIEF = 60
"""How much of a call's arguments a branch shows."""


def tree_text(document: dict[str, Any]) -> str:
    """The tree ``compare S1 S2 S3`` prints."""
    runs = document["runs"]
    head = f"{counted(len(runs), 'run')}, {document['failed']:,} ended with a failure"
    evaluated = document["resolved"] + document["unresolved"]
    if evaluated:
        head += f", {document['resolved']:,} of {evaluated:,} evaluated resolved their task"
    lines = [head, *_drawn(document["tree"])]
    for run in runs:
        if run["outcome"] is not None:
            lines.append(f"  {one_line(run['session_id'])}: {outcome_said(run['outcome'])}")
    return "\n".join(lines)


def tasks_text(document: dict[str, Any]) -> str:
    """The evaluation ``compare FOLDER --by-task`` prints: the summary, then each task."""
    tasks = document["tasks"]
    lines = [
        f"{counted(len(tasks), 'task')}, {counted(document['runs'], 'run')}: "
        f"{document['resolved']:,} resolved, {document['unresolved']:,} unresolved, "
        f"{document['not_evaluated']:,} not evaluated"
    ]
    if document["partings"]:
        lines.append("where resolved and unresolved runs of one task part most often:")
        for parting in document["partings"]:
            lines.append(
                f"  the resolved run {_did(parting['resolved_did'])} where the unresolved "
                f"{_did(parting['unresolved_did'])}: {counted(parting['pairs'], 'pair')} of "
                f"runs, in {counted(parting['tasks'], 'task')}"
            )
    elif document["resolved"] and document["unresolved"]:
        lines.append("no task has both a resolved and an unresolved run")
    if document["without_task"]:
        named = ", ".join(one_line(s) for s in document["without_task"][:5])
        more = len(document["without_task"]) - 5
        lines.append(f"sessions that name no task (left out): {named}"
                     + (f" and {more:,} more" if more > 0 else ""))  # fmt: skip
    for task in tasks:
        runs = task["runs"]
        lines.append("")
        said = f"{task['resolved']:,} resolved, {task['unresolved']:,} unresolved"
        lines.append(f"{one_line(task['task'])}: {counted(len(runs), 'run')}, {said}")
        lines += ["  " + line for line in _drawn(task["tree"])]
    return "\n".join(lines)


_DID = {"read": "read a file", "edit": "edited a file", "run": "ran a command",
        "search": "searched", "list": "listed a folder", "submit": "submitted",
        "other": "did something else", "ended": "had ended"}  # fmt: skip


def _did(kind: str) -> str:
    return _DID.get(kind, kind)


def _drawn(tree: dict[str, Any]) -> list[str]:
    """A tree's branches, one a line, drawn with its shape."""
    lines = []
    stack: list[tuple[dict[str, Any], str, str]] = [(tree, "", "")]
    while stack:
        node, lead, rest = stack.pop()
        lines.append(lead + _said(node))
        children = node["children"]
        for number, child in reversed(list(enumerate(children))):
            last = number == len(children) - 1
            stack.append(
                (child, rest + ("└─ " if last else "├─ "), rest + ("   " if last else "│  "))
            )
    return lines


def _said(node: dict[str, Any]) -> str:
    runs = node["runs"]
    said = f"{counted(runs, 'run')} ({node['failed']:,} failed"
    if node["resolved"] or node["unresolved"]:
        said += f", {node['resolved']:,} resolved, {node['unresolved']:,} unresolved"
    said += ")"
    call = node["call"]
    if call is not None:
        arguments = call["arguments"]
        if arguments is None:  # said by what it did
            words = f"{call['kind']} {call['target']}"
        else:
            words = " ".join(str(v) for v in arguments.values() if isinstance(v, str | int | float))
            words = f"{call['tool_name']} {cut_middle(' '.join(words.split()), BRIEF)}"
        said += f" call {node['start'] + 1:,}: {cut_middle(' '.join(words.split()), BRIEF + 20)}"
        said = said.rstrip()
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
