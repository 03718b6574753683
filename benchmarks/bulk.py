"""Rows for the commands that touch every invocation of a session: ``stats``, ``report``, ``export``.

Each runs as a fresh process (as `commands` runs the questions), its time taken
over the start-up of ``correx-tools --version`` and set against the raw reading
loop over the same session; its peak memory is the process's own. The targets
are the bulk-work issue's: stats at most a quarter of the raw read, the report
at most the raw read, the OTLP/JSON export at most twice it, each in bounded
memory.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
from collections.abc import Callable
from pathlib import Path

from .commands import REPORT_MEGABYTES, first_paint, measured, run
from .commands import command as installed
from .stored import StoredSession
from .table import Row

TARGETS = {
    "stats": (0.25, 100),
    "report": (1.0, 200),
    "export": (2.0, 200),
    "verify": (2.0, 200),
    "reindex": (2.0, 200),
    "import": (4.0, 200),
}
"""Each command's most time (a multiple of the raw read) and most peak memory (MB)."""


def bulk_rows(stored: StoredSession, raw_seconds: float, repeat: int) -> list[Row]:
    """``stats --json``, ``report`` and ``export --to otlp-json -o FILE`` on ``stored``."""
    directory = Path(stored.source).parent
    page = directory / f"report-{stored.kind}-{stored.events}.html"
    trace = directory / f"trace-{stored.kind}-{stored.events}.jsonl"
    start_up, _ = measured(["--version"], repeat)
    source, session = stored.source, stored.session_id
    rows = []
    for command, label, arguments in (
        ("stats", "stats --json", ["stats", source, session, "--json"]),
        ("report", "report", ["report", source, session, "-o", str(page)]),
        ("export", "export --to otlp-json -o", ["export", source, session, "-o", str(trace)]),
    ):
        seconds, peak = measured(arguments, repeat)
        over = max(seconds - start_up, 0.0)
        ratio, megabytes = TARGETS[command]
        ours = f"{over:.2f} s over start-up, peak {peak:,.0f} MB"
        target = f"<= {ratio:g}x and <= {megabytes} MB"
        met = over / raw_seconds <= ratio and peak <= megabytes
        if command == "report":
            size = page.stat().st_size / 1e6
            shown = first_paint(page)
            ours += f"; {size:.1f} MB file, " + (
                f"ready in Chromium in {shown:.2f} s" if shown else "no Chromium"
            )
            target += f", file <= {REPORT_MEGABYTES} MB"
            met = met and size <= REPORT_MEGABYTES
            page.unlink()
        if command == "export":
            ours += f"; {trace.stat().st_size / 1e6:.1f} MB file"
            trace.unlink()
        rows.append(
            Row(
                f"{stored.kind}: correx-tools {label}",
                f"{stored.events:,}",
                ours,
                f"{stored.floors(raw_seconds)}; start-up {start_up * 1000:,.0f} ms",
                over / raw_seconds,
                target,
                met,
            )
        )
    return rows


def whole_store_rows(stored: StoredSession, raw_seconds: float, repeat: int) -> list[Row]:
    """``verify``, ``reindex`` (of a copy) and ``import`` into a new SQLite file: the work
    that reads, or writes, every event of the store."""
    directory = Path(stored.source).parent
    copy = directory / f"reindexed-{stored.events}.sqlite"
    shutil.copy(stored.source, copy)
    start_up, _ = measured(["--version"], repeat)
    rows = []
    # One process, then two (a tree from before --workers has only the one-process rows).
    one = ["--workers", "1"] if _has_workers() else []
    commands: list[tuple[str, str, Callable[[int], list[str]]]] = [
        ("verify", "verify", lambda _: ["verify", stored.source, *one]),
        ("reindex", "reindex", lambda _: ["reindex", str(copy), *one]),
    ]
    if one:
        commands += [
            ("verify", "verify --workers 2", lambda _: ["verify", stored.source, "--workers", "2"]),
            ("reindex", "reindex --workers 2", lambda _: ["reindex", str(copy), "--workers", "2"]),
        ]
    into = directory / "imported-{}.sqlite"
    apart = ["--workers", "1"] if _has_workers("import") else []
    commands.append(
        ("import", "import into a new SQLite file",
         lambda n: ["import", stored.source, str(into).format(n), *apart]),
    )  # fmt: skip
    if apart:
        commands.append(
            ("import", "import into a new SQLite file, --workers 2",
             lambda n: ["import", stored.source, str(into).format(f"2-{n}"), "--workers", "2"]),
        )  # fmt: skip
    for command, label, arguments in commands:
        runs = [run(arguments(n)) for n in range(repeat)]
        seconds, peak = statistics.median(r[0] for r in runs), max(r[1] for r in runs)
        over = max(seconds - start_up, 0.0)
        ratio, megabytes = TARGETS[command]
        rows.append(
            Row(
                f"{stored.kind}: correx-tools {label}",
                f"{stored.events:,}",
                f"{over:.2f} s over start-up, peak {peak:,.0f} MB",
                f"{stored.floors(raw_seconds)}; start-up {start_up * 1000:,.0f} ms",
                over / raw_seconds,
                f"<= {ratio:g}x and <= {megabytes} MB",
                over / raw_seconds <= ratio and peak <= megabytes,
            )
        )
    copy.unlink()
    for imported in directory.glob("imported-*.sqlite"):
        imported.unlink()
    return rows


def _has_workers(command: str = "verify") -> bool:
    """Whether ``command`` of the tree under test takes ``--workers`` (those before it work
    alone)."""
    said = subprocess.run(
        [*installed(), command, "--help"], capture_output=True, text=True, check=False
    )
    return "--workers" in said.stdout
