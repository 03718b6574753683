"""Many sessions of one task as one document: the tree of where they split (`branches`),
each branch with its runs, how many of them ended with a failure, and the call that
set it apart (what ``compare SOURCE S1 S2 S3 ...`` prints and sends).

Each session's calls are read as a comparison of two reads them (`comparing.read_calls`);
the call that begins each branch is read again, by its request's sequence, from the
first of the branch's runs (`describe`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...core.lifecycle.status import ToolInvocationStatus
from ...core.replay.branches import Branch, split_tree
from ...core.replay.comparison import Calls
from ...core.replay.recorded import exited_nonzero
from ...core.replay.stored_index import InvocationEntry
from ...core.report.redaction import Redaction
from ...core.tools.json_values import thaw_json
from .comparing import Side

_FAILED = frozenset({ToolInvocationStatus.FAILED, ToolInvocationStatus.REJECTED})

Describe = Callable[[int, list[int]], dict[int, InvocationEntry]]
"""The entries of a run's calls at these positions, by their request's sequence."""


def ended_with_failure(calls: Calls) -> bool:
    """Whether a run's last call failed, was rejected, or exited non-zero."""
    if not len(calls):
        return False
    last = calls[len(calls) - 1]
    return last.status in _FAILED or exited_nonzero(last.status, last.exit_code)


def runs_tree(
    sides: Sequence[Side], read: Callable[[Side], Calls], *, redaction: Redaction | None = None
) -> dict[str, Any]:
    """The tree of where the sessions of ``sides`` split: each read once by ``read`` (which
    says, in its caller's words, why one cannot be), one after another; the call that
    begins each branch read again from the first of its runs. ``redaction`` masks the
    arguments shown (the server's answers are masked; the command's ``--json`` is not)."""
    runs = [read(side) for side in sides]

    def describe(run: int, positions: list[int]) -> dict[int, InvocationEntry]:
        found: dict[int, InvocationEntry] = {}
        with sides[run].open() as view:
            for position in positions:
                for entry in view.entries_before(runs[run][position].requested_seq, 1):
                    found[entry.requested_seq] = entry
        return found

    return tree_document([side.session for side in sides], runs, describe, redaction=redaction)


def tree_document(
    names: Sequence[str],
    runs: Sequence[Calls],
    describe: Describe,
    *,
    redaction: Redaction | None = None,
) -> dict[str, Any]:
    """The runs (their sessions' ``names``) and the tree of where they split."""
    failed = [ended_with_failure(calls) for calls in runs]
    root = split_tree([calls.keys for calls in runs], failed)
    wanted: dict[int, list[int]] = {}
    for branch in _branches(root):
        if branch.shared:
            wanted.setdefault(branch.runs[0], []).append(branch.start)
    entries = {run: describe(run, positions) for run, positions in wanted.items()}

    def node(branch: Branch) -> dict[str, Any]:
        call: dict[str, Any] | None = None
        if branch.shared:
            first = branch.runs[0]
            facts = runs[first][branch.start]
            entry = entries[first].get(facts.requested_seq)
            call = {
                "tool_name": facts.tool_name,
                "invocation_id": None if entry is None else entry.invocation_id,
                "arguments": None if entry is None else _shown(entry, redaction),
            }
        return {
            "runs": len(branch.runs),
            "failed": branch.failed,
            "sessions": [names[r] for r in branch.runs],
            "start": branch.start,
            "shared": branch.shared,
            "call": call,
            "ended": [names[r] for r in branch.ended],
            "children": [node(child) for child in branch.children],
        }

    return {
        "runs": [
            {"session_id": name, "calls": len(calls), "failed": was}
            for name, calls, was in zip(names, runs, failed, strict=True)
        ],
        "failed": sum(failed),
        "tree": node(root),
    }


def _shown(entry: InvocationEntry, redaction: Redaction | None) -> Any:
    arguments = thaw_json(entry.request.arguments)
    return arguments if redaction is None else redaction.value(arguments)


def _branches(root: Branch) -> list[Branch]:
    found, stack = [], [root]
    while stack:
        branch = stack.pop()
        found.append(branch)
        stack.extend(branch.children)
    return found
