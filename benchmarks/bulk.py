"""Rows for the commands that touch every invocation of a session: ``stats``, ``report``, ``export``.

Each runs as a fresh process (as `commands` runs the questions), its time taken
over the start-up of ``correx-tools --version`` and set against the raw reading
loop over the same session; its peak memory is the process's own. The targets
are the bulk-work issue's: stats at most a quarter of the raw read, the report
at most the raw read, the OTLP/JSON export at most twice it, each in bounded
memory.
"""

from __future__ import annotations

from pathlib import Path

from .commands import REPORT_MEGABYTES, first_paint, measured
from .stored import StoredSession
from .table import Row

TARGETS = {"stats": (0.25, 100), "report": (1.0, 200), "export": (2.0, 200)}
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
                f"{raw_seconds:.2f} s raw loop; start-up {start_up * 1000:,.0f} ms",
                over / raw_seconds,
                target,
                met,
            )
        )
    return rows
