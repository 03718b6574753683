"""Which intervals reach past a point: the calls still open at a sequence, or in view at a time.

A call is open right after sequence ``k`` when it was requested by ``k`` and
ends after it; a bar is in view from time ``t`` when it was requested by the
view's end and ends at ``t`` or after. Both are "the first ``m`` items whose
end is past a threshold". The maximum end of every block of 64 items is kept
(a sixty-fourth of the items' own size): a question skips each block whose
maximum is not past the threshold and looks into the others, so it costs
``n / 64`` comparisons plus 64 per block that holds an answer.
"""

from __future__ import annotations

from array import array
from collections.abc import Callable
from typing import final

BLOCK = 64


@final
class BlockMax:
    """The maxima of ``value(p)`` over blocks of `BLOCK` positions, for ``p`` in ``0..n-1``."""

    __slots__ = ("_maxima", "_n", "_value")

    def __init__(self, n: int, value: Callable[[int], int]) -> None:
        maxima = array("q")
        for start in range(0, n, BLOCK):
            maxima.append(max(map(value, range(start, min(n, start + BLOCK)))))
        self._n, self._value, self._maxima = n, value, maxima

    def above(self, m: int, threshold: int, limit: int | None = None) -> list[int]:
        """The positions ``p < m`` whose value is over ``threshold``, in order (at most
        ``limit`` of them)."""
        m = min(m, self._n)
        value, found = self._value, []
        for block, top in enumerate(self._maxima[: -(-m // BLOCK)] if m > 0 else ()):
            if top <= threshold:
                continue
            for p in range(block * BLOCK, min(m, (block + 1) * BLOCK)):
                if value(p) > threshold:
                    found.append(p)
                    if limit is not None and len(found) >= limit:
                        return found
        return found
