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


def installed_environment() -> dict[str, str]:
    """This process's environment for a command it starts, the command's bytecode cached as an
    installed package's is (``PYTHONDONTWRITEBYTECODE`` left out: a start that compiles
    every module again measures what no installed copy does)."""
    return {key: value for key, value in os.environ.items() if key != "PYTHONDONTWRITEBYTECODE"}


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
    """The processor, core count, memory, operating system and Python this run is on."""
    cpu = platform.processor() or platform.machine()
    memory = ""
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
        for line in Path("/proc/meminfo").read_text().splitlines():
            if line.startswith("MemTotal:"):
                memory = f", {int(line.split()[1]) / 1024**2:.1f} GiB"
                break
    except OSError:
        pass
    try:
        system = platform.freedesktop_os_release()["PRETTY_NAME"] + ", "
    except (OSError, KeyError):
        system = ""
    return (
        f"{cpu}, {os.cpu_count()} cores{memory}, {system}{platform.system()} "
        f"{platform.release()}, Python {platform.python_version()}"
    )


def ratio_cell(ratio: float | None) -> str:
    """A ratio as the table shows it: three decimals under 0.1, two above."""
    return "-" if ratio is None else f"{ratio:.3f}" if ratio < 0.1 else f"{ratio:.2f}"


def met_cell(met: bool | None) -> str:
    """``yes``, ``NO`` or ``-`` (a row with no target)."""
    return "-" if met is None else ("yes" if met else "NO")


def markdown(headers: Sequence[str], cells: Sequence[Sequence[str]]) -> str:
    """A Markdown table, its columns padded to line up."""
    table = [list(headers), *(list(row) for row in cells)]
    widths = [max(len(row[i]) for row in table) for i in range(len(headers))]
    lines = [
        "| " + " | ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)) + " |"
        for row in table
    ]
    lines.insert(1, "|" + "|".join("-" * (w + 2) for w in widths) + "|")
    return "\n".join(lines)


def render(rows: Sequence[Row]) -> str:
    """The rows as a Markdown table, columns padded to line up."""
    headers = ["benchmark", "size", "correx_tools", "baseline", "ratio", "target", "met"]
    return markdown(
        headers,
        [
            [r.name, r.size, r.ours, r.baseline, ratio_cell(r.ratio), r.target, met_cell(r.met)]
            for r in rows
        ],
    )
