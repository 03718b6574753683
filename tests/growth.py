"""Guards against work that grows faster than its input, which a busy machine cannot fail.

A bound in seconds (``elapsed < 0.05``), or a ratio of two timings taken while other
processes share the cores, measures the machine as much as the code: beside two busy loops
the same test took three times as long, and went red. Here a cost is the CPU time of this
thread (what other processes run does not count in it), the least of a few runs, and a
guard compares the cost of one input at two sizes: linear work grows as the size does,
quadratic work as its square, far past any limit set between the two. Speed targets in
seconds or against a baseline live in ``benchmarks/``.
"""

from __future__ import annotations

import time
from collections.abc import Callable


def cpu_seconds(work: Callable[[], object], *, runs: int = 3) -> float:
    """The least CPU time of this thread that ``work()`` took in ``runs`` runs."""
    best = float("inf")
    for _ in range(runs):
        started = time.thread_time()
        work()
        best = min(best, time.thread_time() - started)
    return best


def growth(
    work: Callable[[int], Callable[[], object]], small: int, large: int, *, runs: int = 3
) -> float:
    """How many times the cost of ``work(large)()`` is that of ``work(small)()``: about
    ``large / small`` for linear work, its square for quadratic work. Each is prepared
    (``work(size)``) before it is timed, and run once before (caches, compiled rules)."""
    costs = []
    for size in (small, large):
        run = work(size)
        run()
        costs.append(cpu_seconds(run, runs=runs))
    # A floor of a microsecond: a fast path can take no measurable time at the small size.
    return costs[1] / max(costs[0], 1e-6)


def grows_linearly(
    work: Callable[[int], Callable[[], object]], small: int, large: int, *, runs: int = 3
) -> float:
    """`growth`, failing past twice linear (quadratic is ``large / small`` times that)."""
    return grows_at_most(2 * large / small, work, small, large, runs=runs)


def grows_at_most(
    limit: float,
    work: Callable[[int], Callable[[], object]],
    small: int,
    large: int,
    *,
    runs: int = 3,
) -> float:
    """`growth`, taken once more if the first look is past ``limit`` (a look can still meet a
    cache another process emptied; work that grows faster costs that every time); fails
    past ``limit``."""
    found = growth(work, small, large, runs=runs)
    if found > limit:
        found = min(found, growth(work, small, large, runs=runs))
    assert found <= limit, f"{found:.1f} times the cost at {large / small:g} times the size"
    return found
