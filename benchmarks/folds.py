"""Rows for folding events already in memory: speed, memory, time travel, growth."""

from __future__ import annotations

import gc
import random
import statistics
import time
from collections.abc import Sequence

import jsonschema

from correx_tools import (
    InMemoryToolRegistry,
    Retention,
    StoredEvent,
    ToolProjector,
    ToolRequest,
    ToolSpec,
    fold_events,
)

from .baselines import (
    decoded_tuples,
    deepcopy_snapshots,
    eventsourcing_replay,
    in_place_fold,
    tuple_loop,
)
from .sessions import session
from .table import Row, at_most, rate, timed, traced_bytes


def final_state(events: Sequence[StoredEvent]) -> object:
    """The fold the rows call "final-state": no timeline kept."""
    return fold_events(ToolProjector(), events).unwrap()


def fold_rows(events: Sequence[StoredEvent], label: str, repeat: int) -> list[Row]:
    """The final-state fold and the Retention.all() fold against the in-place baseline."""
    n = len(events)
    base = timed(lambda: in_place_fold(events), repeat)
    final = timed(lambda: final_state(events), repeat)
    every = timed(
        lambda: fold_events(ToolProjector(), events, retention=Retention.all()).unwrap(), repeat
    )
    return [
        at_most(
            f"final-state fold{label}",
            f"{n:,}",
            rate(n, final),
            rate(n, base),
            ratio=final / base,
            limit=2.0,
        ),
        at_most(
            f"fold, Retention.all(){label}",
            f"{n:,}",
            rate(n, every),
            rate(n, base),
            ratio=every / base,
            limit=5.0,
        ),
    ]


def mixed_rows(events: Sequence[StoredEvent], repeat: int) -> list[Row]:
    """Invocations ending a third each in completed, failed and rejected-after-start: the
    final-state fold and Retention.all() against a tight loop over pre-decoded tuples, and
    against each other."""
    n = len(events)
    tuples = decoded_tuples(events)
    tight = timed(lambda: tuple_loop(tuples), repeat)
    final = timed(lambda: final_state(events), repeat)
    every = timed(
        lambda: fold_events(ToolProjector(), events, retention=Retention.all()).unwrap(), repeat
    )
    return [
        at_most(
            "final-state fold, ends in thirds",
            f"{n:,}",
            rate(n, final),
            f"{rate(n, tight)} (tuple loop)",
            ratio=final / tight,
            limit=THIRDS_LIMITS[0],
        ),
        Row(
            "fold, Retention.all(), ends in thirds",
            f"{n:,}",
            rate(n, every),
            f"{rate(n, final)} (final-state fold)",
            every / final,
            ">= 1.0x (final faster)",
            every / final >= 1.0,
        ),
        at_most(
            "fold, Retention.all(), ends in thirds, over the tuple loop",
            f"{n:,}",
            rate(n, every),
            f"{rate(n, tight)} (tuple loop)",
            ratio=every / tight,
            limit=THIRDS_LIMITS[1],
        ),
    ]


THIRDS_LIMITS = (2.0, 5.0)
"""The final-state fold and ``Retention.all()`` on the thirds mix, at most these multiples
of the tuple loop (the bulk-work issue: every mix of the benchmark, this one included)."""


def peer_row(events: Sequence[StoredEvent], repeat: int) -> Row:
    """The final-state fold against the eventsourcing library's replay of the same session."""
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
    ours = timed(lambda: final_state(events), repeat)
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
    """What each retention policy keeps alive, next to the decoded events themselves."""
    n = len(events)
    event_bytes, _ = traced_bytes(lambda: list(session(n)))
    # What a fold keeps with no timeline at all: the part of every retention
    # policy's memory that is the state itself, not the retained past.
    final_bytes, _ = traced_bytes(lambda: fold_events(ToolProjector(), events).unwrap().state)
    mib = 2**20
    rows = [
        Row(
            "memory, final state (no timeline)",
            f"{n:,}",
            f"{final_bytes / mib:,.1f} MiB ({final_bytes / event_bytes:.1%} of events)",
            f"events {event_bytes / mib:,.1f} MiB",
            final_bytes / event_bytes,
            "-",
            None,
        )
    ]
    held: dict[str, int] = {}
    for label, retention in (
        ("all()", Retention.all()),
        ("every(1000)", Retention.every(1000)),
        ("last(1000)", Retention.last(1000)),
    ):
        held[label], replay = traced_bytes(
            lambda retention=retention: fold_events(
                ToolProjector(), events, retention=retention
            ).unwrap()
        )
        del replay
    rows.append(
        Row(
            "memory, Retention.all()",
            f"{n:,}",
            f"{held['all()'] / n:,.0f} B/snapshot",
            "-",
            None,
            "<= 1,500 B",
            held["all()"] / n <= 1500,
        )
    )
    # A timeline is judged by what it adds over the final state it ends in.
    for label in ("every(1000)", "last(1000)"):
        added = held[label] - final_bytes
        share = added / event_bytes
        judged = label == "every(1000)"
        rows.append(
            Row(
                f"memory, Retention.{label}, over the final state",
                f"{n:,}",
                f"+{added / mib:,.1f} MiB ({share:.1%} of events)",
                f"events {event_bytes / mib:,.1f} MiB",
                share,
                "<= 10% of events" if judged else "-",
                share <= 0.10 if judged else None,
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
    """``Timeline.at(k)`` latency at random points, per retention policy."""
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
        p50, p99 = samples[len(samples) // 2], samples[max(int(len(samples) * 0.99) - 1, 0)]
        judged = label == "every(1000)"
        rows.append(
            Row(
                f"Timeline.at(k), {label}",
                f"{n:,}",
                f"p50 {p50:.3f} ms, p99 {p99:.3f} ms",
                "-",
                None,
                "<= 5 ms" if judged else "-",
                p99 <= 5 if judged else None,
            )
        )
    return rows


def validation_row(calls: int) -> Row:
    """Checking one request against its tool's schema, against jsonschema's cached validator."""
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

    per_round = max(calls // 9, 1)

    def ours() -> None:
        for _ in range(per_round):
            registry.validate(request)

    def theirs() -> None:
        for _ in range(per_round):
            list(validator.iter_errors(arguments))

    # Rounds of each in turn, judged by the median of the rounds' ratios: a per-call
    # cost of tens of microseconds moves by a fifth within a minute on a shared
    # machine, and a round's two sides see the same moment of it.
    rounds = [(timed(ours, 1) / per_round, timed(theirs, 1) / per_round) for _ in range(9)]
    mine = statistics.median(a for a, _ in rounds)
    base = statistics.median(b for _, b in rounds)
    ratio = statistics.median(a / b for a, b in rounds)
    return Row(
        "request validation per call",
        f"{calls:,} calls",
        f"{mine * 1e6:,.1f} µs",
        f"{base * 1e6:,.1f} µs (jsonschema, cached)",
        ratio,
        "<= 1.3x (bounded + RE2)",
        ratio <= 1.3,
    )


def growth_row(small: Sequence[StoredEvent], large: Sequence[StoredEvent], repeat: int) -> Row:
    """How the fold's time grows from the small session to the large one, judged against
    how the in-place baseline's own time grows between the same sizes in the same run
    (much of the growth is the machine's caches, not the fold)."""
    t_small = timed(lambda: final_state(small), repeat)
    t_large = timed(lambda: final_state(large), repeat)
    base_growth = timed(lambda: in_place_fold(large), repeat) / timed(
        lambda: in_place_fold(small), repeat
    )
    m_small, _ = traced_bytes(lambda: fold_events(ToolProjector(), small).unwrap().state)
    m_large, _ = traced_bytes(lambda: fold_events(ToolProjector(), large).unwrap().state)
    ratio = t_large / t_small
    relative = ratio / base_growth
    return at_most(
        "growth, final-state fold, over the baseline's",
        f"{len(small):,} -> {len(large):,}",
        f"time x{ratio:.1f}, memory x{m_large / m_small:.1f}",
        f"in-place baseline: time x{base_growth:.1f}",
        ratio=relative,
        limit=1.1,
    )


def gc_row(events: Sequence[StoredEvent]) -> Row:
    """One full collection while a Retention.all() timeline of the session is alive."""
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
