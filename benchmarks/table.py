"""The table's rows, how each is timed, and how the table is printed."""

from __future__ import annotations

import gc
import os
import platform
import statistics
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass
class Row:
    """One line of the table."""

    name: str
    size: str
    ours: str
    baseline: str
    ratio: float | None
    target: str
    met: bool | None


def at_most(name: str, size: str, ours: str, baseline: str, *, ratio: float, limit: float) -> Row:
    """A row whose ratio must be at most ``limit``."""
    return Row(name, size, ours, baseline, ratio, f"<= {limit:g}x", ratio <= limit)


def timed(work: Callable[[], object], repeat: int) -> float:
    """The median wall time of ``repeat`` runs, the collector as the caller has it."""
    times = []
    for _ in range(repeat):
        gc.collect()
        started = time.perf_counter()
        work()
        times.append(time.perf_counter() - started)
    return statistics.median(times)


def traced_bytes(work: Callable[[], object]) -> tuple[int, object]:
    """Bytes still allocated by ``work`` once it returns (what its result keeps alive)."""
    gc.collect()
    tracemalloc.start()
    try:
        result = work()
        gc.collect()
        current, _ = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    return current, result


def rate(events: int, seconds: float) -> str:
    """Events per second, for a cell."""
    return f"{events / seconds:,.0f} ev/s"


def machine() -> str:
    """The processor, core count, Python and kernel this run is on."""
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return (
        f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, "
        f"{platform.system()} {platform.release()}"
    )


def render(rows: Sequence[Row]) -> str:
    """The rows as a Markdown table, columns padded to line up."""
    headers = ["benchmark", "size", "correx_tools", "baseline", "ratio", "target", "met"]
    cells = [headers] + [
        [
            r.name,
            r.size,
            r.ours,
            r.baseline,
            "-" if r.ratio is None else f"{r.ratio:.3f}" if r.ratio < 0.1 else f"{r.ratio:.2f}",
            r.target,
            "-" if r.met is None else ("yes" if r.met else "NO"),
        ]
        for r in rows
    ]
    widths = [max(len(row[i]) for row in cells) for i in range(len(headers))]
    lines = [
        "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"
        for row in cells
    ]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)
