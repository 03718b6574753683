"""Many sessions against a peer on the same files: a generated Claude Code folder of
10,000 sessions read by ``correx-tools`` and by ccusage.

ccusage reads every file on every run (``daily --json --offline``); the command fills its
cache once (on every core), then answers from it. The rows: the first fill against one
ccusage run, its peak memory, the first page of ``sessions`` and ``usage --by day`` warm,
each over a bare interpreter's start, and whether the two tools' daily token counts and
costs agree. ccusage is looked for as ``CORREX_BENCH_CCUSAGE`` (a path to its script) or
``ccusage`` on the PATH; without it, its rows say so.
"""

from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from .claude_folder import write_folder
from .table import Row, at_most, installed_environment

FILL_MB = 200
"""The most memory the first fill may take (MB)."""


def _peak(argv: list[str], env: dict[str, str]) -> tuple[float, float | None, str]:
    """Wall seconds, peak memory (MB, where GNU time can say) and standard output of a run."""
    gnu_time = shutil.which("time") or ("/usr/bin/time" if Path("/usr/bin/time").exists() else None)
    measured = [gnu_time, "-f", "%M", *argv] if gnu_time else argv
    started = time.perf_counter()
    done = subprocess.run(measured, capture_output=True, text=True, env=env, check=False)
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        raise RuntimeError(f"{argv[:3]} failed: {done.stderr[-500:]}")
    peak = None
    if gnu_time:
        last = done.stderr.strip().splitlines()[-1]
        peak = int(last) / 1024 if last.isdigit() else None
    return seconds, peak, done.stdout


def _best(argv: list[str], env: dict[str, str], repeat: int = 5) -> tuple[float, str]:
    times, out = [], ""
    for _ in range(repeat):
        started = time.perf_counter()
        done = subprocess.run(argv, capture_output=True, text=True, env=env, check=True)
        times.append(time.perf_counter() - started)
        out = done.stdout
    return sorted(times)[len(times) // 2], out


def _ccusage() -> str | None:
    given = os.environ.get("CORREX_BENCH_CCUSAGE")
    return given if given and Path(given).exists() else shutil.which("ccusage")


def many_rows(directory: Path, sessions: int = 10_000) -> list[Row]:
    """The rows of a folder of ``sessions`` Claude Code sessions."""
    root = directory / "claude"
    projects = root / "projects"
    written = write_folder(projects, sessions, turns=3)
    size = f"{sessions:,} sessions, {written.bytes / 1e6:.0f} MB"
    env = {**installed_environment(), "CLAUDE_CONFIG_DIR": str(root), "TZ": "UTC",
           "XDG_CACHE_HOME": str(directory / "cache-home")}  # fmt: skip
    command = [sys.executable, "-m", "correx_tools"]
    cache = ["--cache", str(directory / "cache.sqlite")]
    fill, fill_mb, _ = _peak([*command, "sessions", str(projects), "--json", *cache], env)
    bare, _ = _best([sys.executable, "-c", "pass"], env)
    first_page, _ = _best([*command, "sessions", str(projects), "--limit", "30", *cache], env)
    by_day, ours = _best([*command, "usage", str(projects), "--by", "day", "--tz", "UTC",
                          "--json", *cache], env)  # fmt: skip
    rows = [
        Row("many sessions: first page of sessions, warm", size, f"{first_page - bare:.3f} s",
            "over start-up", None, "<= 0.1 s", first_page - bare <= 0.1),
        Row("many sessions: usage --by day, warm", size, f"{by_day - bare:.3f} s",
            "over start-up", None, "<= 0.3 s", by_day - bare <= 0.3),
    ]  # fmt: skip
    if fill_mb is not None:
        rows.append(Row("many sessions: first fill, peak memory", size, f"{fill_mb:.0f} MB",
                        "-", None, f"<= {FILL_MB} MB", fill_mb <= FILL_MB))  # fmt: skip
    peer = _ccusage()
    if peer is None:
        rows.append(Row("many sessions: first fill vs ccusage daily", size, f"{fill:.1f} s",
                        "ccusage not installed", None, "<= 1x", None))  # fmt: skip
        return rows
    theirs_s, theirs_mb, theirs = _peak([peer, "daily", "--json", "--offline"], env)
    rows.append(at_most("many sessions: first fill vs ccusage daily", size, f"{fill:.1f} s",
                        f"{theirs_s:.1f} s" + (f", {theirs_mb:.0f} MB" if theirs_mb else ""),
                        ratio=fill / theirs_s, limit=1.0))  # fmt: skip
    agree = _agree(json.loads(ours), json.loads(theirs))
    rows.append(Row("many sessions: daily tokens and cost = ccusage's", size,
                    "equal" if agree is None else agree, "ccusage daily", None, "equal",
                    agree is None))  # fmt: skip
    return rows


def _agree(ours: dict[str, Any], theirs: dict[str, Any]) -> str | None:
    """``None`` when every day's four token counts and cost agree, else the first that
    does not."""
    mine = {row["key"]: row for row in ours["rows"]}
    for day in theirs["daily"]:
        row = mine.get(day["date"])
        if row is None:
            return f"{day['date']} missing"
        tokens = row["tokens"]
        pairs = ((tokens["input"], day["inputTokens"]), (tokens["output"], day["outputTokens"]),
                 (tokens["cache_read"], day["cacheReadTokens"]),
                 (tokens["cache_write"], day["cacheCreationTokens"]))  # fmt: skip
        if any(a != b for a, b in pairs):
            return f"{day['date']} tokens differ"
        if abs((row["cost"] or 0) - day["totalCost"]) > 1e-6 * max(1.0, day["totalCost"]):
            return f"{day['date']} cost {row['cost']} against {day['totalCost']}"
    return None if len(mine) == len(theirs["daily"]) else "a day only we have"
