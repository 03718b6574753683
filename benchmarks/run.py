"""The benchmark table: each row against a baseline measured in the same run.

``python -m benchmarks`` runs the full sizes (100k and 1M events, several
minutes); ``--quick`` runs tiny sizes (the smoke test uses it). Every
measurement runs with the garbage collector in its default state.
"""

from __future__ import annotations

import argparse
import gc
import os
import platform
import random
import statistics
import tempfile
import time
import tracemalloc
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import jsonschema

from correx_tools import (
    EventReplayer,
    InMemoryToolRegistry,
    Retention,
    SQLiteEventStore,
    StoredEvent,
    ToolProjector,
    ToolRequest,
    ToolSpec,
    fold_events,
    replay_all,
)

from .baselines import deepcopy_snapshots, eventsourcing_replay, in_place_fold, raw_sqlite_loop
from .sessions import session


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
    return f"{events / seconds:,.0f} ev/s"


def fold_rows(events: Sequence[StoredEvent], label: str, repeat: int) -> list[Row]:
    n = len(events)
    base = timed(lambda: in_place_fold(events), repeat)
    final = timed(lambda: fold_events(ToolProjector(), events).unwrap(), repeat)
    every = timed(
        lambda: fold_events(ToolProjector(), events, retention=Retention.all()).unwrap(), repeat
    )
    return [
        Row(
            f"final-state fold{label}",
            f"{n:,}",
            rate(n, final),
            rate(n, base),
            final / base,
            "<= 2.0x",
            final / base <= 2.0,
        ),
        Row(
            f"fold, Retention.all(){label}",
            f"{n:,}",
            rate(n, every),
            rate(n, base),
            every / base,
            "<= 5.0x",
            every / base <= 5.0,
        ),
    ]


def peer_row(events: Sequence[StoredEvent], repeat: int) -> Row:
    replay = eventsourcing_replay(events)
    n = len(events)
    if replay is None:
        return Row(
            "vs eventsourcing replay",
            f"{n:,}",
            "-",
            "not installed (pip install '.[bench]')",
            None,
            ">= 30x faster",
            None,
        )
    peer = timed(replay, repeat)
    ours = timed(lambda: fold_events(ToolProjector(), events).unwrap(), repeat)
    return Row(
        "vs eventsourcing replay",
        f"{n:,}",
        rate(n, ours),
        rate(n, peer),
        peer / ours,
        ">= 30x faster",
        peer / ours >= 30,
    )


def memory_rows(events: Sequence[StoredEvent], naive_size: int) -> list[Row]:
    n = len(events)
    event_bytes, _ = traced_bytes(lambda: list(session(n)))
    # What a fold keeps with no timeline at all: the part of every retention
    # policy's memory that is the state itself, not the retained past.
    final_bytes, _ = traced_bytes(lambda: fold_events(ToolProjector(), events).unwrap().state)
    rows = [
        Row(
            "memory, final state (no timeline)",
            f"{n:,}",
            f"{final_bytes / 2**20:,.1f} MiB ({final_bytes / event_bytes:.1%} of events)",
            f"events {event_bytes / 2**20:,.1f} MiB",
            final_bytes / event_bytes,
            "-",
            None,
        )
    ]
    for label, retention in (
        ("all()", Retention.all()),
        ("every(1000)", Retention.every(1000)),
        ("last(1000)", Retention.last(1000)),
    ):
        held, replay = traced_bytes(
            lambda retention=retention: fold_events(
                ToolProjector(), events, retention=retention
            ).unwrap()
        )
        del replay
        per = held / n
        if label == "all()":
            rows.append(
                Row(
                    f"memory, Retention.{label}",
                    f"{n:,}",
                    f"{per:,.0f} B/snapshot",
                    "-",
                    None,
                    "<= 1,500 B",
                    per <= 1500,
                )
            )
        else:
            share = held / event_bytes
            target = "<= 10% of events" if label == "every(1000)" else "-"
            met = share <= 0.10 if label == "every(1000)" else None
            rows.append(
                Row(
                    f"memory, Retention.{label}",
                    f"{n:,}",
                    f"{held / 2**20:,.1f} MiB ({share:.1%} of events)",
                    f"events {event_bytes / 2**20:,.1f} MiB",
                    share,
                    target,
                    met,
                )
            )
    small = list(events[:naive_size])
    naive, _ = traced_bytes(lambda: deepcopy_snapshots(small))
    ours, _ = traced_bytes(
        lambda: fold_events(ToolProjector(), small, retention=Retention.all()).unwrap()
    )
    rows.append(
        Row(
            "memory, all() vs deepcopy per event",
            f"{naive_size:,}",
            f"{ours / naive_size:,.0f} B/snapshot",
            f"{naive / naive_size:,.0f} B/snapshot",
            naive / max(ours, 1),
            "(grows with n)",
            None,
        )
    )
    return rows


def time_travel_rows(events: Sequence[StoredEvent]) -> list[Row]:
    n = len(events)
    rng = random.Random(7)
    # Where in the retained range each sample falls: the same spread for every
    # policy, so last(n) is sampled over its own range as well.
    spread = [rng.random() for _ in range(1000)]
    rows = []
    for label, retention in (
        ("all()", Retention.all()),
        ("every(1000)", Retention.every(1000)),
        ("last(1000)", Retention.last(1000)),
    ):
        timeline = fold_events(ToolProjector(), events, retention=retention).unwrap().timeline
        assert timeline is not None
        retained = timeline.retained
        samples = []
        for k in (retained.start + int(f * len(retained)) for f in spread):
            started = time.perf_counter()
            timeline.at(k)
            samples.append((time.perf_counter() - started) * 1000)
        samples.sort()
        p50, p99 = (
            samples[len(samples) // 2],
            samples[int(len(samples) * 0.99) - 1 if len(samples) > 1 else 0],
        )
        target = "<= 5 ms" if label == "every(1000)" else "-"
        met = p99 <= 5 if label == "every(1000)" else None
        rows.append(
            Row(
                f"Timeline.at(k), {label}",
                f"{n:,}",
                f"p50 {p50:.3f} ms, p99 {p99:.3f} ms",
                "-",
                None,
                target,
                met,
            )
        )
    return rows


def sqlite_rows(events: Sequence[StoredEvent], repeat: int, directory: Path) -> list[Row]:
    n = len(events)
    path = directory / "bench.sqlite"
    with SQLiteEventStore(path) as store:
        for start in range(0, n, 10_000):
            store.import_events(events[start : start + 10_000]).unwrap()
        session_id = events[0].session_id
        ours = timed(
            lambda: EventReplayer(store).replay(session_id, ToolProjector()).unwrap(), repeat
        )
        # The read alone: every event decoded and dropped, no state kept. What the
        # replay costs beyond it is the fold and the collector walking what it keeps.
        decoded = timed(lambda: sum(1 for _ in store.read(session_id)), repeat)
    raw = timed(lambda: raw_sqlite_loop(path, session_id), repeat)
    baseline = f"{rate(n, raw)} (SELECT + json.loads)"
    return [
        Row(
            "SQLite end-to-end replay",
            f"{n:,}",
            rate(n, ours),
            baseline,
            ours / raw,
            "<= 2.0x",
            ours / raw <= 2.0,
        ),
        Row(
            "SQLite read and decode only",
            f"{n:,}",
            rate(n, decoded),
            baseline,
            decoded / raw,
            "-",
            None,
        ),
    ]


def validation_row(calls: int) -> Row:
    schema = {
        "type": "object",
        "properties": {
            "path": {"type": "string", "pattern": "^[^/][A-Za-z0-9_./-]*$", "maxLength": 4096},
            "content": {"type": "string"},
            "mode": {"enum": ["overwrite", "append"]},
            "lines": {"type": "array", "items": {"type": "integer", "minimum": 1}, "maxItems": 100},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    }
    registry = InMemoryToolRegistry.of(
        ToolSpec(name="write_file", description="Write", parameters=schema)
    ).unwrap()
    arguments = {
        "path": "src/app.py",
        "content": "print('hi')\n" * 20,
        "mode": "overwrite",
        "lines": [1, 2, 3],
    }
    request = ToolRequest(tool_name="write_file", arguments=arguments)
    validator = jsonschema.Draft202012Validator(schema)

    def ours() -> None:
        for _ in range(calls):
            registry.validate(request)

    def theirs() -> None:
        for _ in range(calls):
            list(validator.iter_errors(arguments))

    mine, base = timed(ours, 3) / calls, timed(theirs, 3) / calls
    return Row(
        "request validation per call",
        f"{calls:,} calls",
        f"{mine * 1e6:,.1f} µs",
        f"{base * 1e6:,.1f} µs (jsonschema, cached)",
        mine / base,
        "(bounded + RE2)",
        None,
    )


def growth_row(small: Sequence[StoredEvent], large: Sequence[StoredEvent], repeat: int) -> Row:
    t_small = timed(lambda: fold_events(ToolProjector(), small).unwrap(), repeat)
    t_large = timed(lambda: fold_events(ToolProjector(), large).unwrap(), repeat)
    # The same sizes through the in-place baseline: how much of the growth is the
    # machine's caches rather than the fold.
    base_growth = timed(lambda: in_place_fold(large), repeat) / timed(
        lambda: in_place_fold(small), repeat
    )
    m_small, _ = traced_bytes(lambda: fold_events(ToolProjector(), small).unwrap().state)
    m_large, _ = traced_bytes(lambda: fold_events(ToolProjector(), large).unwrap().state)
    factor = len(large) / len(small)
    ratio = t_large / t_small
    return Row(
        "growth, final-state fold",
        f"{len(small):,} -> {len(large):,}",
        f"time x{ratio:.1f}, memory x{m_large / m_small:.1f}",
        f"x{factor:.0f} events (in-place baseline: time x{base_growth:.1f})",
        ratio,
        f"<= {factor * 1.1:.0f}x",
        ratio <= factor * 1.1,
    )


def gc_row(events: Sequence[StoredEvent]) -> Row:
    replay = fold_events(ToolProjector(), events, retention=Retention.all()).unwrap()
    started = time.perf_counter()
    gc.collect()
    seconds = time.perf_counter() - started
    del replay
    return Row(
        "gc.collect() with an all() timeline alive",
        f"{len(events):,}",
        f"{seconds:.2f} s",
        "-",
        None,
        "<= 1 s",
        seconds <= 1.0,
    )


def parallel_rows(total: int, directory: Path) -> list[Row]:
    path = directory / "many.sqlite"
    with SQLiteEventStore(path) as store:
        for number in range(4):
            events = session(total // 4, name=f"worker-{number}")
            for start in range(0, len(events), 10_000):
                store.import_events(events[start : start + 10_000]).unwrap()
        one = timed(lambda: replay_all(store, ToolProjector(), workers=1), 1)
        two = timed(lambda: replay_all(store, ToolProjector(), workers=2), 1)
        one_summary = timed(
            lambda: replay_all(store, ToolProjector(), workers=1, summarize=summary), 1
        )
        two_summary = timed(
            lambda: replay_all(store, ToolProjector(), workers=2, summarize=summary), 1
        )
    return [
        Row(
            "replay_all, 4 sessions, 2 workers",
            f"{total:,}",
            f"{two:.2f} s",
            f"{one:.2f} s (1 worker)",
            one / two,
            "speed-up",
            None,
        ),
        Row(
            "replay_all + summarize, 2 workers",
            f"{total:,}",
            f"{two_summary:.2f} s",
            f"{one_summary:.2f} s (1 worker)",
            one_summary / two_summary,
            "speed-up",
            None,
        ),
    ]


def summary(replay: Any) -> tuple[int, int]:
    """What a worker sends back with ``summarize``: the last sequence and the invocation count."""
    return replay.last_sequence, len(replay.state)


def machine() -> str:
    cpu = platform.processor() or platform.machine()
    try:
        for line in Path("/proc/cpuinfo").read_text().splitlines():
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    except OSError:
        pass
    return f"{cpu}, {os.cpu_count()} cores, Python {platform.python_version()}, {platform.system()} {platform.release()}"


def render(rows: Sequence[Row]) -> str:
    headers = ["benchmark", "size", "correx_tools", "baseline", "ratio", "target", "met"]
    cells = [headers] + [
        [
            r.name,
            r.size,
            r.ours,
            r.baseline,
            "-" if r.ratio is None else f"{r.ratio:.2f}",
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


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m benchmarks", description=__doc__)
    parser.add_argument(
        "--quick", action="store_true", help="tiny sizes, one repetition (a smoke test)"
    )
    args = parser.parse_args(argv)
    small_n, large_n, repeat, peer_n, naive_n = (
        (300, 3_000, 1, 300, 200) if args.quick else (100_000, 1_000_000, 3, 100_000, 2_000)
    )
    print(f"# correx_tools benchmarks, {datetime.now(UTC):%Y-%m-%d %H:%M} UTC")
    print(f"# machine: {machine()}")
    print(
        f"# garbage collector: {'enabled' if gc.isenabled() else 'DISABLED'}, thresholds {gc.get_threshold()}, left as is in every row"
    )
    small, large = session(small_n), session(large_n)
    rows: list[Row] = []
    rows += fold_rows(small, "", repeat)
    rows += fold_rows(large, "", repeat)
    rows += fold_rows(
        session(large_n, open_at_once=10_000 if not args.quick else 100), ", 10k open", repeat
    )
    rows.append(peer_row(session(peer_n), repeat))
    rows += memory_rows(large, naive_n)
    rows += time_travel_rows(large)
    with tempfile.TemporaryDirectory() as directory:
        rows += sqlite_rows(large, repeat, Path(directory))
        rows += parallel_rows(large_n, Path(directory))
    rows.append(validation_row(200 if args.quick else 20_000))
    rows.append(growth_row(small, large, repeat))
    rows.append(gc_row(large))
    print(render(rows))
    return 0
