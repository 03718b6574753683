"""The benchmark table: each row against a baseline measured in the same run.

``python -m benchmarks`` runs the full sizes (100k and 1M events, three
quarters of an hour); ``--quick`` runs tiny sizes (the smoke test uses it);
``--events N`` runs the large rows at N events (the small ones at a tenth of it)
and ``--only`` some groups of rows, for a measurement on a shared machine. Every
measurement runs with the garbage collector in its default state.
"""

from __future__ import annotations

import argparse
import gc
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from .audit import audit_rows, folder_rows
from .bulk import bulk_rows, whole_store_rows
from .commands import command_rows
from .compare import compare_rows
from .folds import (
    fold_rows,
    gc_row,
    growth_row,
    memory_rows,
    mixed_rows,
    peer_row,
    time_travel_rows,
    validation_row,
)
from .many_sessions import many_rows
from .masking import masking_rows
from .serve import serve_rows
from .sessions import session, thirds
from .sources import source_rows
from .stored import (
    append_latency_row,
    jsonl_session,
    parallel_rows,
    postgres_database,
    postgres_session,
    replay_rows,
    sqlite_session,
)
from .table import Row, machine, render, timed
from .transcripts import format_rows, transcript_rows


def stored_rows(
    events: Sequence[object], repeat: int, directory: Path, questions: int = 200
) -> list[Row]:
    """Append, replay, cold get and the command's questions, for each store that can run."""
    rows: list[Row] = []
    sqlite, append = sqlite_session(events, directory)  # type: ignore[arg-type]
    rows.append(append)
    stores = [sqlite, jsonl_session(events, directory)]  # type: ignore[arg-type]
    with postgres_database() as url:
        if url is None:
            rows.append(Row("PostgreSQL rows", "-", "-", "no server", None, "-", None))
        else:
            postgres, append = postgres_session(events, url)  # type: ignore[arg-type]
            rows.append(append)
            stores.append(postgres)
        for stored in stores:
            replayed, raw = replay_rows(stored, repeat)
            rows += replayed
            if stored.kind != "JSONL":  # the targets name the stores with an index
                rows += command_rows(stored, raw, repeat)
            if stored.kind == "SQLite":
                rows.append(append_latency_row(stored))
                rows += bulk_rows(stored, raw, repeat)
                rows += whole_store_rows(stored, raw, repeat)
                rows += serve_rows(stored, questions)
    return rows


def small_bulk_rows(events: Sequence[object], repeat: int, directory: Path) -> list[Row]:
    """``stats``, ``report`` and ``export`` of the small session (the large one's are among
    the stored rows)."""
    (directory / "small").mkdir()
    stored, _ = sqlite_session(events, directory / "small")  # type: ignore[arg-type]
    raw = timed(stored.raw, repeat)
    stored.compiled_seconds = timed(stored.raw_compiled, repeat)
    return bulk_rows(stored, raw, repeat) + whole_store_rows(stored, raw, repeat)


GROUPS = (
    "folds", "masking", "stored", "parallel", "transcripts", "sources", "compare", "audit",
    "many",
)  # fmt: skip
"""The groups of rows ``--only`` picks from, in the table's order."""


def _groups(text: str) -> frozenset[str]:
    chosen = frozenset(name.strip() for name in text.split(",") if name.strip())
    unknown = sorted(chosen - set(GROUPS))
    if unknown or not chosen:
        raise argparse.ArgumentTypeError(
            f"unknown group {', '.join(unknown) or '(none)'}; choose from {', '.join(GROUPS)}"
        )
    return chosen


def _events(text: str) -> int:
    try:
        events = int(text)
    except ValueError:
        events = 0
    if events < 3_000:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number of events >= 3000")
    return events


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table; ``--quick`` for tiny sizes."""
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument(
        "--quick", action="store_true", help="tiny sizes, one repetition (a smoke test)"
    )
    parser.add_argument(
        "--events",
        type=_events,
        metavar="N",
        help="the large sessions' size (default 1,000,000; the small ones a tenth of it)",
    )
    parser.add_argument(
        "--only",
        type=_groups,
        default=frozenset(GROUPS),
        metavar="GROUPS",
        help=f"comma-separated groups of rows to run: {', '.join(GROUPS)} (default: all)",
    )
    args = parser.parse_args(argv)
    small_n, large_n, repeat, peer_n, naive_n = (
        (300, 3_000, 1, 300, 200) if args.quick else (100_000, 1_000_000, 3, 100_000, 2_000)
    )
    if args.events is not None:
        large_n = args.events
        small_n = peer_n = max(large_n // 10, 300)
    only: frozenset[str] = args.only
    print(f"# correx_tools benchmarks, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    print(f"# machine: {machine()}")
    print(
        f"# garbage collector: {'enabled' if gc.isenabled() else 'DISABLED'}, "
        f"thresholds {gc.get_threshold()}, left as is in every row"
    )
    # The sessions held in memory, built only for the groups that read them (the audit
    # row writes its own session to a store as it makes it).
    held = bool(only & {"folds", "stored"})
    small, large = (session(small_n), session(large_n)) if held else ([], [])
    rows: list[Row] = []
    if "folds" in only:
        rows += fold_rows(small, "", repeat)
        rows += fold_rows(large, "", repeat)
        rows += fold_rows(
            session(large_n, open_at_once=100 if args.quick else 10_000), ", 10k open", repeat
        )
        rows += mixed_rows(session(large_n, name="mixed", ending=thirds), repeat)
        rows.append(peer_row(session(peer_n), repeat))
        rows += memory_rows(large, naive_n)
        rows += time_travel_rows(large)
        rows.append(validation_row(200 if args.quick else 20_000))
        rows.append(growth_row(small, large, repeat))
        rows.append(gc_row(large))
    if "masking" in only:
        rows += masking_rows(65_536 if args.quick else 1 << 20, repeat)
    with tempfile.TemporaryDirectory() as directory:
        if "stored" in only:
            rows += small_bulk_rows(small, repeat, Path(directory))
            rows += stored_rows(large, repeat, Path(directory), 20 if args.quick else 200)
        if "parallel" in only:
            rows += parallel_rows(large_n, Path(directory), repeat)
        if "transcripts" in only:
            rows += transcript_rows(300 if args.quick else 100_000, Path(directory))
            small_lines, large_lines = (300, 3_000) if args.quick else (10_000, 1_000_000)
            rows += format_rows(small_lines, large_lines, Path(directory))
        if "sources" in only:
            files, size = (20, 50_000) if args.quick else (1_000, 1_000_000)
            rows += source_rows(files, size, Path(directory))
        if "compare" in only:
            rows += compare_rows(3_000 if args.quick else 1_000_000, repeat, Path(directory))
        rows += _audit_and_peer_rows(only, Path(directory), repeat, large_n, quick=args.quick)
    print(render(rows))
    return 0


def _audit_and_peer_rows(
    only: frozenset[str], directory: Path, repeat: int, large_n: int, *, quick: bool
) -> list[Row]:
    """The audit's rows, and the rows measured against another tool on the same files."""
    rows: list[Row] = []
    if "audit" in only:
        rows += audit_rows(3_000 if quick else large_n, repeat, directory)
        files, size = (20, 20_000) if quick else (1_000, 100_000)
        rows += folder_rows(files, size, repeat, directory)
    if "many" in only:
        rows += many_rows(directory, 60 if quick else 10_000)
    return rows
