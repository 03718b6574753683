"""Many sessions of one task as one document: the tree of where they split (`branches`),
each branch with its runs, how many of them ended with a failure and how many an
evaluation found resolved, and the call that set it apart (what ``compare SOURCE S1 S2
S3 ...`` prints and sends).

Each session's calls are read as a comparison of two reads them (`comparing.read_calls`),
and compared by meaning (`comparison`: spelling is no split); the call that begins each
branch is said by its kind and target, and read again, by its request's sequence, from
the first of the branch's runs (`describe`) for its arguments.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from ...core.lifecycle.outcome import Outcome, outcome_json
from ...core.lifecycle.status import ToolInvocationStatus
from ...core.replay.branches import Branch, split_tree
from ...core.replay.comparison import Calls
from ...core.replay.partings import Partings
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
    outcomes = [side.outcome for side in sides]

    def describe(run: int, positions: list[int]) -> dict[int, InvocationEntry]:
        found: dict[int, InvocationEntry] = {}
        with sides[run].open() as view:
            for position in positions:
                for entry in view.entries_before(runs[run][position].requested_seq, 1):
                    found[entry.requested_seq] = entry
        return found

    names = [side.session for side in sides]
    return tree_document(names, runs, describe, redaction=redaction, outcomes=outcomes)


def tree_document(
    names: Sequence[str],
    runs: Sequence[Calls],
    describe: Describe | None,
    *,
    redaction: Redaction | None = None,
    outcomes: Sequence[Outcome | None] = (),
    partings: Partings | None = None,
) -> dict[str, Any]:
    """The runs (their sessions' ``names``, how each ended) and the tree of where they
    split; without ``describe``, a branch's call is said by its kind and target only.
    ``partings`` counts where this task's resolved and unresolved runs part."""
    failed = [ended_with_failure(calls) for calls in runs]
    verdicts = [None if o is None else o.resolved for o in outcomes] or [None] * len(runs)
    root = split_tree([calls.by_meaning[:] for calls in runs], failed, verdicts)
    if partings is not None:
        kinds = [[calls.kind_of(position) for position in range(len(calls))] for calls in runs]
        partings.add(root, kinds, verdicts)
    wanted: dict[int, list[int]] = {}
    for branch in _branches(root):
        if branch.shared and describe is not None:
            wanted.setdefault(branch.runs[0], []).append(branch.start)
    entries = {run: describe(run, positions) for run, positions in wanted.items() if describe}

    def node(branch: Branch) -> dict[str, Any]:
        call: dict[str, Any] | None = None
        if branch.shared:
            first = branch.runs[0]
            facts = runs[first][branch.start]
            entry = entries.get(first, {}).get(facts.requested_seq)
            call = {
                "tool_name": facts.tool_name,
                "kind": facts.kind,
                "target": facts.target if redaction is None else redaction.text(facts.target),
                "invocation_id": None if entry is None else entry.invocation_id,
                "arguments": None if entry is None else _shown(entry, redaction),
            }
        return {
            "runs": len(branch.runs),
            "failed": branch.failed,
            "resolved": branch.resolved,
            "unresolved": branch.unresolved,
            "sessions": [names[r] for r in branch.runs],
            "start": branch.start,
            "shared": branch.shared,
            "call": call,
            "ended": [names[r] for r in branch.ended],
            "children": [node(child) for child in branch.children],
        }

    told = list(outcomes) or [None] * len(runs)
    return {
        "runs": [
            {
                "session_id": name,
                "calls": len(calls),
                "failed": was,
                "outcome": outcome_json(outcome),
            }
            for name, calls, was, outcome in zip(names, runs, failed, told, strict=True)
        ],
        "failed": sum(failed),
        "resolved": root.resolved,
        "unresolved": root.unresolved,
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
