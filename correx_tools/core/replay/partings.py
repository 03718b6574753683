"""Where resolved and unresolved runs of one task part, counted over many tasks: what the
resolved run did there, and what the unresolved one did instead.

For each task, its runs' tree of where they split (`branches.split_tree`) says, for
each two runs, the branch where they part: the call each makes first after what they
share (or that it had ended). Each pair of a resolved and an unresolved run of one task
is counted once, at that point, by the kinds of those two calls (`kinds`: ``edit``
against ``submit``, say, or ``ended``). Summed over every task of an evaluation, the
most frequent pairs of kinds say where resolved runs most often go another way than
unresolved ones. Each split is looked at once, each pair of its children's runs
counted by their numbers (no pair is walked): O(branches · children²) a task.

>>> from correx_tools.core.replay.branches import split_tree
>>> tree = split_tree([[1, 2], [1, 3]], [False, False], [True, False])
>>> found = Partings()
>>> found.add(tree, [["read", "edit"], ["read", "submit"]], [True, False])
>>> found.most()
[(('edit', 'submit'), 1, 1)]
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from typing import final

from .branches import Branch

ENDED = "ended"
"""The kind said of a run that had no more calls where the other went on."""


@final
class Partings:
    """The pairs of a resolved and an unresolved run counted, over the tasks `add`ed, by
    what each did where they parted."""

    __slots__ = ("pairs", "tasks")

    def __init__(self) -> None:
        self.pairs: Counter[tuple[str, str]] = Counter()
        """Pairs of runs, by (what the resolved one did, what the unresolved one did)."""
        self.tasks: Counter[tuple[str, str]] = Counter()
        """Tasks in which such a pair is found."""

    def add(
        self, root: Branch, kinds: Sequence[Sequence[str]], resolved: Sequence[bool | None]
    ) -> None:
        """One task's runs: their tree, each run's calls' kinds, each run's verdict."""
        found: Counter[tuple[str, str]] = Counter()
        stack = [root]
        while stack:
            branch = stack.pop()
            stack.extend(branch.children)
            at = branch.start + branch.shared
            ways = [(tuple(branch.ended), ENDED)] if branch.ended else []
            ways += [(child.runs, kinds[child.runs[0]][at]) for child in branch.children]
            # Each way's resolved and unresolved runs; every two ways part here.
            counted = [(kind, _count(runs, resolved, True), _count(runs, resolved, False))
                       for runs, kind in ways]  # fmt: skip
            for number, (kind, ups, downs) in enumerate(counted):
                for other, other_ups, other_downs in counted[number + 1 :]:
                    if ups and other_downs:
                        found[(kind, other)] += ups * other_downs
                    if other_ups and downs:
                        found[(other, kind)] += other_ups * downs
        self.pairs.update(found)
        self.tasks.update(found.keys())

    def most(self, limit: int = 10) -> list[tuple[tuple[str, str], int, int]]:
        """The most frequent ways they part: (the resolved run's kind, the unresolved
        one's), the pairs of runs, the tasks; most pairs first."""
        ranked = sorted(self.pairs.items(), key=lambda item: (-item[1], item[0]))
        return [(kinds, pairs, self.tasks[kinds]) for kinds, pairs in ranked[:limit]]


def _count(runs: Sequence[int], resolved: Sequence[bool | None], verdict: bool) -> int:
    return sum(resolved[run] is verdict for run in runs)
