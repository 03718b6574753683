"""The k-th smallest of the first m values of a list, for any m, in O(√n) per question.

Per-tool statistics at a scrubbed point need nearest-rank percentiles of the
durations known by then: the durations of the calls started (or ended) by that
sequence, a *prefix* of them in the order the events came. Sorting that prefix
on every question would cost a million-event session seconds; this structure
answers from counts kept once.

The values are split into about √n blocks by rank, and the positions into
about √n blocks by order. ``_counts`` holds, for each position block boundary,
how many values of each rank block came before it. A question walks the rank
blocks to the one holding the k-th value (adding the few positions past the last
boundary), then that block's values in rank order: at most ``3·√n`` steps.
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from math import isqrt
from typing import final


@final
class PrefixOrder:
    """Answers ``smallest(m, k)``: the k-th smallest of ``values[:m]`` (1-based ``k``)."""

    __slots__ = ("_block", "_counts", "_rank_of", "_row", "_sorted", "_where")

    def __init__(self, values: Sequence[int]) -> None:
        n = len(values)
        self._block = block = max(16, isqrt(n) or 1)
        self._where = where = sort_order(values)  # rank -> position
        self._sorted = array("q", map(values.__getitem__, where))
        rank_of = array("i", bytes(4 * n))
        for rank in range(n):
            rank_of[where[rank]] = rank
        self._rank_of = rank_of
        blocks = -(-n // block) if n else 0
        self._row = blocks
        # Row j: how many of the first j * block positions fall in each rank block.
        counts = array("i", bytes(4 * blocks * (blocks + 1)))
        running = array("i", bytes(4 * blocks))
        for j in range(blocks):
            for position in range(j * block, min(n, (j + 1) * block)):
                running[rank_of[position] // block] += 1
            counts[(j + 1) * blocks : (j + 2) * blocks] = running
        self._counts = counts

    def __len__(self) -> int:
        return len(self._sorted)

    def smallest(self, m: int, k: int) -> int:
        """The ``k``-th smallest of the first ``m`` values (``1 <= k <= m <= len``)."""
        if not 1 <= k <= m <= len(self._sorted):
            raise IndexError(f"no {k}-th smallest of the first {m} of {len(self._sorted)} values")
        block, blocks, rank_of = self._block, self._row, self._rank_of
        full = m // block
        extra: dict[int, int] = {}
        for position in range(full * block, m):
            key = rank_of[position] // block
            extra[key] = extra.get(key, 0) + 1
        row = self._counts[full * blocks : (full + 1) * blocks]
        seen = 0
        for key in range(blocks):
            here = row[key] + extra.get(key, 0)
            if seen + here >= k:
                break
            seen += here
        else:  # pragma: no cover - k <= m guarantees the walk stops
            raise AssertionError("the counts do not add up to m")
        where = self._where
        for rank in range(key * block, min((key + 1) * block, len(where))):
            if where[rank] < m:
                seen += 1
                if seen == k:
                    return self._sorted[rank]
        raise AssertionError("the block's values do not add up to its count")


def sort_order(keys: Sequence[int]) -> array[int]:
    """The positions of ``keys`` in the order of their keys (ties by position), as an array.

    Each key and its position are packed into one integer and those are sorted: half the
    objects a sort with a key function makes, which matters at a million calls.
    """
    n = len(keys)
    if n == 0:
        return array("i")
    low = min(keys)
    bits = max(n - 1, 1).bit_length()
    packed = sorted(((key - low) << bits) | position for position, key in enumerate(keys))
    mask = (1 << bits) - 1
    order = array("i", bytes(4 * n))
    for rank, value in enumerate(packed):
        order[rank] = value & mask
    return order
