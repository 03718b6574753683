"""The benchmark table: each row against a baseline measured in the same run.

``python -m benchmarks`` runs the full sizes (100k and 1M events, three quarters of an
hour) of every group but ``catalog`` (10 million events, most of two hours: run it with
``--only catalog``), records its rows in ``benchmarks/results.json`` and writes ``docs/performance.md``
whole from them (``benchmarks/page.py``). ``--quick`` runs tiny sizes (the smoke test
uses it); ``--events N`` runs the large rows at N events (the small ones at a tenth of
it) and ``--only`` some groups of rows, for a measurement on a shared machine. Those
print their table and record nothing unless ``--record`` is given: then their groups'
rows replace the recorded ones, and the other groups keep theirs, each row citing the
run that measured it. Every measurement runs with the garbage collector in its default
state.
"""

from __future__ import annotations

import argparse
import gc
import sys
import tempfile
from collections.abc import Sequence
from datetime import UTC, datetime
from pathlib import Path

from .audit import audit_rows, folder_rows, huge_line_rows
from .bulk import bulk_rows, whole_store_rows
from .catalog import Sizes, catalog_rows
from .commands import command_rows
from .compare import compare_rows
from .evaluations import evaluation_rows
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
from .page import (
    PAGE,
    RESULTS,
    ROOT,
    TITLES,
    Recorded,
    Results,
    dump,
    load,
    record,
    this_run,
    write_page,
)
from .seals import seal_rows
from .serve import serve_rows
from .sessions import session, thirds
from .sources import source_rows
from .startup import startup_rows
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
from .team import team_rows
from .team_follow import follow_rows
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


GROUPS = tuple(TITLES)
"""The groups of rows ``--only`` picks from, in the table's order."""
APART = frozenset({"catalog"})
"""The groups a full run leaves out (each takes hours at its full size): ``--only`` runs
them."""
DEFAULT = frozenset(GROUPS) - APART


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


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)  # fmt: skip
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
        default=DEFAULT,
        metavar="GROUPS",
        help=f"comma-separated groups of rows to run: {', '.join(GROUPS)} (default: all "
        f"but {', '.join(sorted(APART))})",
    )
    parser.add_argument(
        "--record",
        action="store_true",
        help="record this run's rows and rewrite the page though the run is not a full one "
        "(a full run always records)",
    )
    parser.add_argument("--note", default="", help="what the run's record should say of it "
                        "that it cannot measure (what else ran on the machine)")  # fmt: skip
    parser.add_argument("--catalog-file", type=Path, metavar="FILE", help="the catalog "
                        "group's SQLite file: kept, and reused by a run of the same size")  # fmt: skip
    parser.add_argument("--catalog-schema", metavar="NAME", help="the catalog group's "
                        "PostgreSQL schema in CORREX_BENCH_POSTGRES_DSN's database: kept, and "
                        "reused by a run of the same size")  # fmt: skip
    parser.add_argument(
        "--rewrite-page",
        action="store_true",
        help="measure nothing: write the page again from the recorded rows and the notes",
    )
    parser.add_argument("--results", type=Path, metavar="FILE",
                        help=f"the recorded rows (default: {RESULTS.relative_to(ROOT)})")  # fmt: skip
    parser.add_argument("--page", type=Path, metavar="FILE",
                        help=f"the page written (default: {PAGE.relative_to(ROOT)})")  # fmt: skip
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Print the table; a full run (or ``--record``) records its rows and writes the page."""
    parser = _parser()
    arguments = list(sys.argv[1:] if argv is None else argv)
    args = parser.parse_args(arguments)
    results, page = args.results or RESULTS, args.page or PAGE
    if args.rewrite_page:
        write_page(results, page)
        return 0
    if args.quick and args.record and (args.results is None or args.page is None):
        parser.error("a --quick run is recorded only into the --results and --page given")
    started = datetime.now(UTC)
    print(f"# correx_tools benchmarks, {started:%Y-%m-%d %H:%M} UTC")
    print(f"# machine: {machine()}")
    print(
        f"# garbage collector: {'enabled' if gc.isenabled() else 'DISABLED'}, "
        f"thresholds {gc.get_threshold()}, left as is in every row"
    )
    measured = measure(args)
    print(render([row for rows in measured.values() for row in rows]))
    full = not args.quick and args.events is None and args.only >= DEFAULT
    if full or args.record:
        run = this_run(arguments, started, args.note)
        recorded = [Recorded(g, run.key, row) for g, rows in measured.items() for row in rows]
        before = load(results) if results.exists() else Results(runs=(), rows=())
        results.write_text(dump(record(before, run, measured, recorded)), encoding="utf-8")
        write_page(results, page)
    return 0


def measure(args: argparse.Namespace) -> dict[str, list[Row]]:
    """The rows of each group ``args`` asks for, at the sizes it asks for."""
    small_n, large_n, repeat, peer_n, naive_n = (
        (300, 3_000, 1, 300, 200) if args.quick else (100_000, 1_000_000, 3, 100_000, 2_000)
    )
    if args.events is not None:
        large_n = args.events
        small_n = peer_n = max(large_n // 10, 300)
    only: frozenset[str] = args.only
    rows: dict[str, list[Row]] = {group: [] for group in GROUPS if group in only}
    with tempfile.TemporaryDirectory() as directory:
        if "startup" in only:  # first, before this process holds any session
            rows["startup"] = startup_rows(Path(directory), 3 if args.quick else 21)
        # The sessions held in memory, built only for the groups that read them (the audit
        # row writes its own session to a store as it makes it).
        held = bool(only & {"folds", "stored"})
        small, large = (session(small_n), session(large_n)) if held else ([], [])
        if "folds" in only:
            rows["folds"] = fold_group(
                small,
                large,
                large_n=large_n,
                peer_n=peer_n,
                naive_n=naive_n,
                repeat=repeat,
                quick=args.quick,
            )
        if "masking" in only:
            rows["masking"] = masking_rows(65_536 if args.quick else 1 << 20, repeat)
        if "stored" in only:
            rows["stored"] = small_bulk_rows(small, repeat, Path(directory)) + stored_rows(
                large, repeat, Path(directory), 20 if args.quick else 200
            )
        if "seals" in only:
            rows["seals"] = seal_rows(small_n * 10, repeat, Path(directory))
        if "parallel" in only:
            rows["parallel"] = parallel_rows(large_n, Path(directory), repeat)
        if "transcripts" in only:
            small_lines, large_lines = (300, 3_000) if args.quick else (10_000, 1_000_000)
            rows["transcripts"] = transcript_rows(
                300 if args.quick else 100_000, Path(directory)
            ) + format_rows(small_lines, large_lines, Path(directory))
        if "sources" in only:
            files, size = (20, 50_000) if args.quick else (1_000, 1_000_000)
            rows["sources"] = source_rows(files, size, Path(directory))
        if "compare" in only:
            events = 3_000 if args.quick else large_n
            tasks = 10 if args.quick else 500
            rows["compare"] = compare_rows(events, repeat, Path(directory)) + evaluation_rows(
                tasks, 3, Path(directory)
            )
        if "audit" in only:
            files, size = (20, 20_000) if args.quick else (1_000, 100_000)
            rows["audit"] = audit_rows(
                3_000 if args.quick else large_n, repeat, Path(directory)
            ) + folder_rows(files, size, repeat, Path(directory))
            rows["audit"] += huge_line_rows(5 if args.quick else 100, repeat, Path(directory))
        if "many" in only:
            rows["many"] = many_rows(Path(directory), 60 if args.quick else 10_000)
        if "catalog" in only:  # 10,000 sessions of 10M events at full size, or --events
            events = 3_000 if args.quick else 10_000_000 if args.events is None else large_n
            sizes = Sizes(30 if args.quick else 10_000, events, 5 if args.quick else 200,
                          args.catalog_file, args.catalog_schema)  # fmt: skip
            rows["catalog"] = catalog_rows(Path(directory), sizes)
        if "team" in only:  # sessions a machine: 3,000 at full size, or --events / 1,000
            per_machine = 5 if args.quick else 3_000 if args.events is None else large_n // 1_000
            rows["team"] = team_rows(Path(directory), per_machine)
            batches = (3, 5) if args.quick else (10, 100)  # batches, sessions a batch
            rows["team"] += follow_rows(Path(directory), *batches)
    return rows


def fold_group(
    small: Sequence[object], large: Sequence[object], *, large_n: int, peer_n: int,
    naive_n: int, repeat: int, quick: bool,
) -> list[Row]:  # fmt: skip
    """The in-memory fold's rows: speed, memory, time travel, validation, growth, collector."""
    rows = fold_rows(small, "", repeat) + fold_rows(large, "", repeat)
    rows += fold_rows(session(large_n, open_at_once=100 if quick else 10_000), ", 10k open", repeat)
    rows += mixed_rows(session(large_n, name="mixed", ending=thirds), repeat)
    rows.append(peer_row(session(peer_n), repeat))
    rows += memory_rows(large, naive_n)
    rows += time_travel_rows(large)
    rows.append(validation_row(200 if quick else 20_000))
    rows.append(growth_row(small, large, repeat))
    rows.append(gc_row(large))
    return rows
