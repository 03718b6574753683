"""The alignment of two sequences of keys: which items of one are matched in the other.

Comparing two runs of a task lines up their calls as ``diff`` lines up two
files: a common subsequence of the two sequences of call keys, and what is
left over on each side. `align` finds it in three steps:

1. the common prefix, matched greedily: it is part of some longest common
   subsequence, and it makes the *first divergence* exact — the first item
   unmatched on either side is at the prefix's end, whatever comes after;
2. the common suffix, likewise;
3. the middle, with its items whose key never occurs on the other side left
   out (they can match nothing: two runs that share nothing cost nothing), by
   Myers' O(ND) difference algorithm in its linear-space form: the *middle
   snake* of each part found from both ends, and the parts on either side of
   it aligned in turn (kept on a stack, not the Python stack).

`align_in_turn` aligns by several keys in turn, each finer rule first: the items
are aligned by their first key, and each stretch between two matches is aligned again
by the next key, and so on (a semantic diff's way: exact equality first, then looser
likeness, only where the stricter found nothing). Each pair says by which key it
matched. The cost is `align`'s for the first key, plus each later key's over the
stretches left unmatched: for two runs that differ little, those are small.

Memory is linear: the two key sequences, the middle's kept positions, and two
arrays of ``2 * max_cost + 3`` diagonals. Time is O((N + M) · D) for N and M
items that differ by D insertions and deletions, which for two runs of the same
task is close to linear. Where a part's search passes ``max_cost`` steps it stops
and splits the part at the point its forward search reached furthest (GNU
diff's heuristic for costly files): the result is still a common subsequence,
though perhaps not a longest one, and no part costs more than O((N + M) ·
max_cost) per split.
"""

from __future__ import annotations

from array import array
from bisect import bisect_left
from collections.abc import Hashable, Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import final

MAX_COST = 64
"""Steps a part's search may take before it splits the part where it reached furthest."""


@final
@dataclass(frozen=True, slots=True)
class Alignment:
    """The matched items of two sequences, as positions in each, in increasing order
    (``a[i] == b[j]`` for each pair); ``length_a`` and ``length_b`` are the sequences'
    lengths. ``levels`` holds, for `align_in_turn`'s pairs, the number of the key each
    matched by (empty: every pair by the first), and a pair matched by key ``alike`` or a
    later one is a match of likeness, not of sameness: the first divergence is there. The
    arrays are never changed after they are built."""

    matched_a: array[int]
    matched_b: array[int]
    length_a: int
    length_b: int
    levels: array[int] = field(default_factory=lambda: array("b"))
    alike: int = 1

    @property
    def first_divergence(self) -> tuple[int, int] | None:
        """Where the first item that is not matched as the same is, as the position reached
        in each sequence (its length where that one has no item there); ``None`` when the
        two sequences are the same."""
        prefix = 0
        levels = self.levels
        for number, (i, j) in enumerate(zip(self.matched_a, self.matched_b, strict=True)):
            if i != prefix or j != prefix or (levels and levels[number] >= self.alike):
                break
            prefix += 1
        if prefix == self.length_a == self.length_b:
            return None
        return (prefix, prefix)

    def pairs(self) -> Iterator[tuple[int, int]]:
        """Each matched pair of positions, in order."""
        return zip(self.matched_a, self.matched_b, strict=True)


def align(a: Sequence[Hashable], b: Sequence[Hashable], *, max_cost: int = MAX_COST) -> Alignment:
    """A common subsequence of ``a`` and ``b`` (a longest one unless a part costs more than
    ``max_cost``), beginning with their whole common prefix.

    >>> found = align("abcde", "abxde")
    >>> list(found.pairs()), found.first_divergence
    ([(0, 0), (1, 1), (3, 3), (4, 4)], (2, 2))
    """
    n, m = len(a), len(b)
    prefix = 0
    while prefix < n and prefix < m and a[prefix] == b[prefix]:
        prefix += 1
    suffix = 0
    while suffix < n - prefix and suffix < m - prefix and a[n - 1 - suffix] == b[m - 1 - suffix]:
        suffix += 1
    matched_a, matched_b = array("q", range(prefix)), array("q", range(prefix))
    # The middle, without the items that can match nothing on the other side.
    in_b = set(b[prefix : m - suffix])
    kept_a = array("q", (i for i in range(prefix, n - suffix) if a[i] in in_b))
    del in_b
    in_a = {a[i] for i in kept_a}
    kept_b = array("q", (j for j in range(prefix, m - suffix) if b[j] in in_a))
    del in_a
    middle = _Middle([a[i] for i in kept_a], [b[j] for j in kept_b], max(2, max_cost))
    for x, y in middle.pairs():
        matched_a.append(kept_a[x])
        matched_b.append(kept_b[y])
    matched_a.extend(range(n - suffix, n))
    matched_b.extend(range(m - suffix, m))
    return Alignment(matched_a=matched_a, matched_b=matched_b, length_a=n, length_b=m)


def align_in_turn(
    a: Sequence[Sequence[Hashable]],
    b: Sequence[Sequence[Hashable]],
    *,
    alike: int,
    max_cost: int = MAX_COST,
) -> Alignment:
    """``a`` and ``b`` (each a list of key sequences, one per rule, all of one length)
    aligned by their first keys, then each unmatched stretch by the next keys, and so on;
    pairs matched by key ``alike`` or later are likenesses (`Alignment.levels`).

    >>> found = align_in_turn([["x", "B", "c"], ["x", "b", "c"]], [["x", "b", "d"],
    ...                        ["x", "b", "d"]], alike=1)
    >>> list(found.pairs()), list(found.levels), found.first_divergence
    ([(0, 0), (1, 1)], [0, 1], (1, 1))
    """
    n, m = len(a[0]), len(b[0])
    first = align(a[0], b[0], max_cost=max_cost)
    # What the looser keys match, stretch by stretch: few pairs for runs that differ little.
    extra: list[tuple[int, int, int]] = []
    stretches = list(_stretches(first.pairs(), 0, n, 0, m))
    for level in range(1, len(a)):
        keys_a, keys_b = a[level], b[level]
        later: list[tuple[int, int, int, int]] = []
        for i0, i1, j0, j1 in stretches:
            found = align(keys_a[i0:i1], keys_b[j0:j1], max_cost=max_cost)
            shifted = [(i0 + x, j0 + y) for x, y in found.pairs()]
            extra += [(x, y, level) for x, y in shifted]
            later += _stretches(shifted, i0, i1, j0, j1)
        stretches = later
    extra.sort()
    # The looser pairs go between the first key's, in order: each found by bisection and
    # the arrays copied in slices (few looser pairs among many exact ones, at C's speed).
    matched_a, matched_b = array("q"), array("q")
    levels = array("b", bytes(len(first.matched_a) + len(extra)))
    start = 0
    for i, j, level in extra:
        at = bisect_left(first.matched_a, i, start)
        matched_a += first.matched_a[start:at]
        matched_b += first.matched_b[start:at]
        levels[len(matched_a)] = level
        matched_a.append(i)
        matched_b.append(j)
        start = at
    matched_a += first.matched_a[start:]
    matched_b += first.matched_b[start:]
    return Alignment(matched_a=matched_a, matched_b=matched_b, length_a=n, length_b=m,
                     levels=levels, alike=alike)  # fmt: skip


def _stretches(
    pairs: Iterable[tuple[int, int]], i0: int, i1: int, j0: int, j1: int
) -> Iterator[tuple[int, int, int, int]]:
    """The stretches of ``a[i0:i1]`` and ``b[j0:j1]`` that ``pairs`` leave unmatched on
    both sides (a stretch with nothing on one side can match nothing)."""
    i, j = i0, j0
    for x, y in pairs:
        if x > i and y > j:
            yield (i, x, j, y)
        i, j = x + 1, y + 1
    if i < i1 and j < j1:
        yield (i, i1, j, j1)


class _Middle:
    """Myers' linear-space alignment of two key lists (the middle of `align`)."""

    def __init__(self, a: list[Hashable], b: list[Hashable], max_cost: int) -> None:
        self.a, self.b, self.max_cost = a, b, max_cost
        size = 2 * max_cost + 3
        self.forward = [0] * size
        self.backward = [0] * size
        self.offset = max_cost + 1

    def pairs(self) -> list[tuple[int, int]]:
        """The matched positions, in order."""
        runs: list[tuple[int, int, int]] = []  # (x, y, length): a diagonal run of matches
        stack = [(0, len(self.a), 0, len(self.b))]
        a, b = self.a, self.b
        while stack:
            x0, x1, y0, y1 = stack.pop()
            start = x0
            while x0 < x1 and y0 < y1 and a[x0] == b[y0]:
                x0, y0 = x0 + 1, y0 + 1
            if x0 > start:
                runs.append((start, y0 - (x0 - start), x0 - start))
            end = x1
            while x1 > x0 and y1 > y0 and a[x1 - 1] == b[y1 - 1]:
                x1, y1 = x1 - 1, y1 - 1
            if end > x1:
                runs.append((x1, y1, end - x1))
            if x0 == x1 or y0 == y1:
                continue
            sx, sy, ex, ey = self._split(x0, x1, y0, y1)
            if ex > sx:
                runs.append((sx, sy, ex - sx))
            stack.append((ex, x1, ey, y1))
            stack.append((x0, sx, y0, sy))
        runs.sort()
        return [(x + k, y + k) for x, y, length in runs for k in range(length)]

    def _split(self, x0: int, x1: int, y0: int, y1: int) -> tuple[int, int, int, int]:
        """The middle snake of ``a[x0:x1]`` and ``b[y0:y1]`` (whose ends differ), as its
        start and end; past ``max_cost`` steps, the furthest point the forward search
        reached, as an empty snake. Both parts it leaves are smaller than the whole."""
        a, b, forward, backward, offset = self.a, self.b, self.forward, self.backward, self.offset
        n, m = x1 - x0, y1 - y0
        delta = n - m
        odd = delta % 2 == 1
        forward[offset + 1] = 0
        backward[offset + 1] = 0
        for d in range((n + m + 1) // 2 + 1):
            if d > self.max_cost:
                return self._furthest(d - 1, x0, y0, n, m)
            for k in range(-d, d + 1, 2):
                if k == -d or (k != d and forward[offset + k - 1] < forward[offset + k + 1]):
                    x = forward[offset + k + 1]
                else:
                    x = forward[offset + k - 1] + 1
                y = x - k
                sx, sy = x, y
                while x < n and y < m and a[x0 + x] == b[y0 + y]:
                    x, y = x + 1, y + 1
                forward[offset + k] = x
                back = delta - k
                if odd and -(d - 1) <= back <= d - 1 and x + backward[offset + back] >= n:
                    return x0 + sx, y0 + sy, x0 + x, y0 + y
            for k in range(-d, d + 1, 2):
                if k == -d or (k != d and backward[offset + k - 1] < backward[offset + k + 1]):
                    x = backward[offset + k + 1]
                else:
                    x = backward[offset + k - 1] + 1
                y = x - k
                sx, sy = x, y
                while x < n and y < m and a[x1 - 1 - x] == b[y1 - 1 - y]:
                    x, y = x + 1, y + 1
                backward[offset + k] = x
                ahead = delta - k
                if not odd and -d <= ahead <= d and x + forward[offset + ahead] >= n:
                    return x1 - x, y1 - y, x1 - sx, y1 - sy
        raise AssertionError("the two searches always meet")  # pragma: no cover

    def _furthest(self, d: int, x0: int, y0: int, n: int, m: int) -> tuple[int, int, int, int]:
        """The point the forward search of the part at ``(x0, y0)`` reached furthest after
        ``d`` steps, as an empty snake; never the part's start or its end."""
        forward, offset = self.forward, self.offset
        best, x, y = -1, 0, 0
        for k in range(-d, d + 1, 2):
            reach = forward[offset + k]
            if 0 <= reach <= n and 0 <= reach - k <= m and 2 * reach - k > best:
                best, x, y = 2 * reach - k, reach, reach - k
        if (x, y) in {(0, 0), (n, m)}:
            x, y = n, 0  # not reached after a step; still a split that makes progress
        return x0 + x, y0 + y, x0 + x, y0 + y
