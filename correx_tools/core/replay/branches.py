"""Many runs of one task as a tree of where they split: which calls all of them made alike,
where they went different ways, and how each way ended.

Runs are compared call by call from their start (by their calls' keys, see
`comparison`): a *branch* is a set of runs that made the same calls up to a
point. Its runs go on together as long as every one of them makes the same next
call; where some make another call, or end, the branch splits, one child per
next call, in the order the runs are given. Runs that part do not meet again in
the tree, even where they later make the same calls: the tree answers "where
did these runs first go differently", and `alignment` answers how two of them
line up after.

Each branch counts its runs that *ended with a failure*: whose last call failed,
was rejected, or exited non-zero (given per run, as the caller reads it); and, where
the runs' outcomes are given (`Outcome.resolved`), those an evaluation found resolved
and unresolved.
Building the tree looks at each call of each run once: O(calls) in all.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import final


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Branch:
    """Runs that made the same calls up to a point.

    ``runs`` are their numbers (as given); their calls ``start`` to ``start + shared``
    (exclusive) are alike, and the first of them is what sets this branch apart from
    its siblings. ``ended`` are the runs that had no more calls after those;
    ``children`` the ways the others went on, each starting at ``start + shared``.
    ``failed`` counts the runs that ended with a failure, ``resolved`` and ``unresolved``
    those an evaluation found so.
    """

    runs: tuple[int, ...]
    start: int
    shared: int
    ended: tuple[int, ...]
    failed: int
    children: tuple[Branch, ...]
    resolved: int = 0
    unresolved: int = 0


def split_tree(
    keys: Sequence[Sequence[int]],
    failed: Sequence[bool],
    resolved: Sequence[bool | None] | None = None,
) -> Branch:
    """The tree of where the runs (each its calls' keys; ``failed``: whether it ended with a
    failure; ``resolved``: whether an evaluation found it resolved, ``None`` where none
    did) split, its root holding them all.

    >>> root = split_tree([[1, 2, 3], [1, 2, 4], [1, 5]], [False, True, True])
    >>> root.shared, [(c.runs, c.start, c.shared, c.failed) for c in root.children]
    (1, [((0, 1), 1, 1, 1), ((2,), 1, 1, 1)])
    >>> [(c.runs, c.start, c.shared) for c in root.children[0].children]
    [((0,), 2, 1), ((1,), 2, 1)]
    """
    if not keys:
        return Branch(runs=(), start=0, shared=0, ended=(), failed=0, children=())
    verdicts = [None] * len(keys) if resolved is None else resolved
    # Built from the leaves up without recursion: a branch is finished once its children are.
    pending: list[tuple[tuple[int, ...], int, int, tuple[int, ...], list[tuple[int, ...]]]] = []
    done: dict[tuple[int, int], Branch] = {}
    stack: list[tuple[tuple[int, ...], int]] = [(tuple(range(len(keys))), 0)]
    while stack:
        runs, start = stack.pop()
        depth = start
        while True:
            ended = tuple(r for r in runs if len(keys[r]) <= depth)
            groups: dict[int, list[int]] = {}
            for r in runs:
                if len(keys[r]) > depth:
                    groups.setdefault(keys[r][depth], []).append(r)
            if ended or len(groups) != 1:
                break
            depth += 1
        children = [tuple(group) for group in groups.values()]
        pending.append((runs, start, depth - start, ended, children))
        stack.extend((child, depth) for child in children)
    for runs, start, shared, ended, children in reversed(pending):
        end = start + shared
        done[(runs[0], start)] = Branch(
            runs=runs,
            start=start,
            shared=shared,
            ended=ended,
            failed=sum(failed[r] for r in runs),
            children=tuple(_child(done, child, end) for child in children),
            resolved=sum(verdicts[r] is True for r in runs),
            unresolved=sum(verdicts[r] is False for r in runs),
        )
    return (
        done[(0, 0)]
        if keys
        else Branch(runs=(), start=0, shared=0, ended=(), failed=0, children=())
    )


def _child(done: dict[tuple[int, int], Branch], runs: tuple[int, ...], at: int) -> Branch:
    """The child branch of ``runs`` whose first call is at ``at``."""
    return done[(runs[0], at)]
