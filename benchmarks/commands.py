"""Rows for the command on a stored session: each run as a fresh process, as a person runs it.

A row's time is the command's wall time less the start-up of ``correx-tools
--version`` measured in the same run (importing Python and the package, which
no question can avoid), its memory the process's peak resident size.
"""

from __future__ import annotations

import os
import random
import shutil
import statistics
import subprocess
import sys
import time
from collections.abc import Collection, Sequence
from pathlib import Path

from .stored import StoredSession
from .table import Row

SHARE_OF_RAW = 0.02
"""Each question at most this share of the raw reading loop over the whole session."""
PEAK_MEGABYTES = 100


def command() -> list[str]:
    """How to run the installed command: its script beside this Python, or ``-m``."""
    script = shutil.which("correx-tools", path=os.path.dirname(sys.executable))
    return [script] if script else [sys.executable, "-m", "correx_tools"]


# A small, fresh Python that starts the command and waits for it: the command's peak
# memory is then its own, not the benchmark's. A child forked straight from this
# process would count this process's gigabyte as resident until it runs exec.
_LAUNCHER = """
import os, sys, time
started = time.perf_counter()
quiet = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0)]
pid = os.posix_spawn(sys.argv[1], sys.argv[1:], os.environ, file_actions=quiet)
_, status, usage = os.wait4(pid, 0)
print(time.perf_counter() - started, usage.ru_maxrss, os.waitstatus_to_exitcode(status))
"""


def run(arguments: Sequence[str], ok: Collection[int] = (0,)) -> tuple[float, float]:
    """``(wall seconds, peak resident MB)`` of one run of the command; it must succeed
    (exit with a status in ``ok``: ``audit`` exits 1 with its findings)."""
    launched = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, *command(), *arguments],
        capture_output=True,
        text=True,
        check=True,
    )
    seconds, kilobytes, status = launched.stdout.split()
    if int(status) not in ok:
        raise RuntimeError(f"correx-tools {' '.join(arguments)} failed: {launched.stderr.strip()}")
    return float(seconds), int(kilobytes) / 1024  # ru_maxrss is in kilobytes on Linux


def measured(
    arguments: Sequence[str], repeat: int, ok: Collection[int] = (0,)
) -> tuple[float, float]:
    """The median wall time and the largest peak of ``repeat`` runs."""
    runs = [run(arguments, ok) for _ in range(repeat)]
    return statistics.median(r[0] for r in runs), max(r[1] for r in runs)


def questions(stored: StoredSession, rng: random.Random) -> list[tuple[str, list[str]]]:
    """The four questions of the targets, at random points of the session."""
    n, source, session_id = stored.events, stored.source, stored.session_id
    k = rng.randrange(1, n)
    a = rng.randrange(1, n - 1_000)
    # The benchmark sessions name their invocations "<session>-<number>", ~3 events each.
    invocation = f"{session_id}-{rng.randrange(n // 3)}"
    return [
        ("sessions", ["sessions", source]),
        (f"replay --at {k:,}", ["replay", source, session_id, "--at", str(k)]),
        ("history", ["history", source, session_id, invocation]),
        (f"diff {a:,} {a + 1_000:,}", ["diff", source, session_id, str(a), str(a + 1_000)]),
    ]


def driver_import(repeat: int) -> float:
    """Seconds a fresh Python takes to import the PostgreSQL driver, over its own start-up:
    what the command on PostgreSQL pays before any query (the bulk-work issue judges the
    PostgreSQL rows with it subtracted)."""

    def median_of(code: str) -> float:
        times = []
        for _ in range(max(repeat, 3)):
            started = time.perf_counter()
            subprocess.run([sys.executable, "-c", code], check=True)
            times.append(time.perf_counter() - started)
        return statistics.median(times)

    return max(median_of("import psycopg") - median_of("pass"), 0.0)


def command_rows(stored: StoredSession, raw_seconds: float, repeat: int) -> list[Row]:
    """The four questions against the raw loop's time, with their peak memory; on
    PostgreSQL less the driver's import too."""
    start_up, start_memory = measured(["--version"], repeat)
    driver = driver_import(repeat) if stored.kind == "PostgreSQL" else 0.0
    over = "start-up and the driver's import" if driver else "start-up"
    rows = []
    for label, arguments in questions(stored, random.Random(11)):
        seconds, peak = measured(arguments, repeat)
        answer = max(seconds - start_up - driver, 0.0)
        share = answer / raw_seconds
        rows.append(
            Row(
                f"{stored.kind}: correx-tools {label}",
                f"{stored.events:,}",
                f"{answer * 1000:,.0f} ms over {over}, peak {peak:,.0f} MB",
                f"{raw_seconds:.2f} s raw loop; start-up {start_up * 1000:,.0f} ms, "
                f"{start_memory:,.0f} MB" + (f"; driver {driver * 1000:,.0f} ms" if driver else ""),
                share,
                f"<= {SHARE_OF_RAW:.0%} and <= {PEAK_MEGABYTES} MB",
                share <= SHARE_OF_RAW and peak <= PEAK_MEGABYTES,
            )
        )
    return rows


REPORT_MEGABYTES = 25
"""The report of a 1M-event session stays under this size."""


def first_paint(page: Path) -> float | None:
    """Seconds from opening ``page`` in headless Chromium to its script having drawn it."""
    chromium = shutil.which("chromium")
    try:
        from playwright.sync_api import sync_playwright  # noqa: PLC0415 - optional here
    except ImportError:
        return None
    if chromium is None:
        return None
    flags = ["--no-sandbox", "--disable-gpu", "--disable-background-networking"]
    with sync_playwright() as driver:
        browser = driver.chromium.launch(executable_path=chromium, args=flags)
        tab = browser.new_page(viewport={"width": 1400, "height": 1000})
        started = time.perf_counter()
        tab.goto(page.as_uri())
        tab.wait_for_selector("body[data-ready]", timeout=120_000)
        seconds = time.perf_counter() - started
        browser.close()
    return seconds
