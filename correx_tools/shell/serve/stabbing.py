"""Which intervals reach past a point: the calls still open at a sequence, or in view at a time.

A call is open right after sequence ``k`` when it was requested by ``k`` and
ends after it; a bar is in view from time ``t`` when it was requested by the
view's end and ends at ``t`` or after. Both are "the first ``m`` items whose
end is past a threshold". A tree of maxima over the ends finds them in
``O(found · log n)`` steps, without looking at the calls that ended before.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import final


@final
class MaxTree:
    """The maxima of ``values`` over every power-of-two range of positions."""

    __slots__ = ("_n", "_size", "_tree")

    def __init__(self, values: Sequence[int]) -> None:
        n = len(values)
        size = 1
        while size < n:
            size *= 2
        tree = array("q", [-(1 << 62)]) * (2 * size)
        tree[size : size + n] = array("q", values)
        for node in range(size - 1, 0, -1):
            left, right = tree[2 * node], tree[2 * node + 1]
            tree[node] = left if left > right else right
        self._n, self._size, self._tree = n, size, tree

    def above(self, m: int, threshold: int, limit: int | None = None) -> list[int]:
        """The positions ``p < m`` whose value is over ``threshold``, in order (at most
        ``limit`` of them)."""
        tree, size = self._tree, self._size
        m = min(m, self._n)
        found: list[int] = []
        if m <= 0:
            return found
        # Depth first, left to right: a node is entered only when its maximum is over the
        # threshold and its range starts before m.
        stack = [(1, 0, size)]
        while stack:
            node, start, width = stack.pop()
            if start >= m or tree[node] <= threshold:
                continue
            if width == 1:
                found.append(start)
                if limit is not None and len(found) >= limit:
                    return found
                continue
            half = width // 2
            stack.append((2 * node + 1, start + half, half))
            stack.append((2 * node, start, half))
        return found
