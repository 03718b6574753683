"""Rows for sessions in a store: appending, a full replay, and a cold repository ``get``.

Each store holds the same session, written through the library; each is
measured against the plain-Python floor for reading it (``baselines.py``).
"""

from __future__ import annotations

import os
import statistics
import subprocess
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import urlsplit

from correx_tools import (
    DefaultToolRepository,
    EventReplayer,
    EventStore,
    InvocationId,
    JsonlEventLog,
    SessionId,
    SQLiteEventStore,
    StoredEvent,
    Tier,
    ToolInvocationRequestedEvent,
    ToolProjector,
    replay_all,
)

from .baselines import (
    compiled_loads,
    legacy_sqlite_append,
    raw_jsonl_loop,
    raw_postgres_loop,
    raw_sqlite_loop,
)
from .sessions import REQUEST, session
from .table import Row, at_most, rate, timed

BATCH = 1_000
"""Events per append: an agent loop's batches, as the targets are stated."""

POSTGRES_READ_BATCH = 5_000
"""Rows per fetch of the raw PostgreSQL loop: the store's own fetch size."""


@dataclass
class StoredSession:
    """One session written into one store, and how to read it back."""

    kind: str
    source: str
    """What the command takes as SOURCE."""
    session_id: SessionId
    events: int
    open_store: Callable[[], EventStore]
    """A new read-only store object over the same data (a cold start)."""
    raw: Callable[[], int]
    """The plain-Python floor for reading the session: rows and ``json.loads``."""
    raw_compiled: Callable[[], int]
    """The same read with the compiled parser the stores use instead of ``json.loads``."""
    compiled_seconds: float | None = None
    """``raw_compiled``'s time once `replay_rows` measured it: the floor each row can also
    be read against."""

    def floors(self, raw_seconds: float) -> str:
        """Both floors, for a row's baseline cell."""
        if self.compiled_seconds is None:
            return f"{raw_seconds:.2f} s raw loop"
        return f"{raw_seconds:.2f} s raw loop ({self.compiled_seconds:.2f} s compiled)"


def append_in_batches(store: EventStore, events: Sequence[StoredEvent]) -> None:
    """The session's payloads appended ``BATCH`` at a time, as an agent loop appends them."""
    payloads = [stored.event for stored in events]
    session_id = events[0].session_id
    for start in range(0, len(payloads), BATCH):
        store.append(session_id, payloads[start : start + BATCH], expected_sequence=start).unwrap()


def sqlite_session(events: Sequence[StoredEvent], directory: Path) -> tuple[StoredSession, Row]:
    """The session appended to a new SQLite file, and the append row: against release
    0.2.0's append of the same payloads in the same batches (no time-travel index)."""
    n, path, legacy = len(events), directory / "bench.sqlite", directory / "legacy.sqlite"
    session_id = events[0].session_id
    started = time.perf_counter()
    with SQLiteEventStore(path) as store:
        append_in_batches(store, events)
    ours = time.perf_counter() - started
    payloads = [stored.event for stored in events]
    started = time.perf_counter()
    legacy_sqlite_append(legacy, session_id, payloads, BATCH)
    theirs = time.perf_counter() - started
    legacy.unlink()
    row = at_most(
        f"SQLite append, batches of {BATCH:,}, index kept",
        f"{n:,}",
        rate(n, ours),
        f"{rate(n, theirs)} (release 0.2.0's append)",
        ratio=ours / theirs,
        limit=1.5,
    )
    stored = StoredSession(
        "SQLite",
        str(path),
        session_id,
        n,
        lambda: SQLiteEventStore(path, read_only=True),
        lambda: raw_sqlite_loop(path, session_id),
        lambda: raw_sqlite_loop(path, session_id, compiled_loads),
    )
    return stored, row


def jsonl_session(events: Sequence[StoredEvent], directory: Path) -> StoredSession:
    """The session imported into a new JSONL log."""
    path = directory / "bench.jsonl"
    log = JsonlEventLog(path)
    for start in range(0, len(events), 10_000):
        log.import_events(events[start : start + 10_000]).unwrap()
    return StoredSession(
        "JSONL",
        str(path),
        events[0].session_id,
        len(events),
        lambda: JsonlEventLog(path),
        lambda: raw_jsonl_loop(path),
        lambda: raw_jsonl_loop(path, compiled_loads),
    )


@contextmanager
def postgres_database() -> Iterator[str | None]:
    """A new, empty database's URL for the run, dropped afterwards; ``None`` without a server.

    The server is ``CORREX_BENCH_POSTGRES_DSN`` or ``CORREX_TEST_POSTGRES_DSN`` if set,
    else one started for the run by ``.ci/postgres-server start --durable`` where it can
    start one. The tests' server writes without fsync, which flatters every commit: a run
    that records its rows gives ``CORREX_BENCH_POSTGRES_DSN`` or neither.
    """
    try:
        import psycopg  # noqa: PLC0415 - the postgres extra
    except ImportError:
        yield None
        return
    dsn = os.environ.get("CORREX_BENCH_POSTGRES_DSN") or os.environ.get("CORREX_TEST_POSTGRES_DSN")
    directory = None
    script = Path(__file__).resolve().parent.parent / ".ci" / "postgres-server"
    if not dsn and script.exists():
        started = subprocess.run(
            ["bash", str(script), "start", "--durable"],
            capture_output=True,
            text=True,
            check=False,
        )
        if started.returncode == 0:
            dsn, directory = started.stdout.split()
    if not dsn:
        yield None
        return
    name = f"correx_bench_{uuid.uuid4().hex[:12]}"
    try:
        with psycopg.connect(dsn, autocommit=True) as connection:
            connection.execute(f'CREATE DATABASE "{name}"')
        try:
            yield urlsplit(dsn)._replace(path=f"/{name}").geturl()
        finally:
            with psycopg.connect(dsn, autocommit=True) as connection:
                connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
    finally:
        if directory is not None:
            subprocess.run(["bash", str(script), "stop", directory], check=False)


def postgres_session(events: Sequence[StoredEvent], url: str) -> tuple[StoredSession, Row]:
    """The session appended to PostgreSQL in the same batches, and that append's row."""
    from correx_tools import PostgresEventStore  # noqa: PLC0415 - the postgres extra

    n, session_id = len(events), events[0].session_id
    started = time.perf_counter()
    with PostgresEventStore(url) as store:
        append_in_batches(store, events)
    seconds = time.perf_counter() - started
    row = Row(
        f"PostgreSQL append, batches of {BATCH:,}, index kept",
        f"{n:,}",
        rate(n, seconds),
        "-",
        None,
        "-",
        None,
    )
    stored = StoredSession(
        "PostgreSQL",
        url,
        session_id,
        n,
        lambda: PostgresEventStore(url, read_only=True),
        lambda: raw_postgres_loop(url, "public", session_id, POSTGRES_READ_BATCH),
        lambda: raw_postgres_loop(url, "public", session_id, POSTGRES_READ_BATCH, compiled_loads),
    )
    return stored, row


REPLAY_LIMITS = {"SQLite": 1.0, "PostgreSQL": 1.0, "JSONL": 4.0}
"""Full replay to the final state, as a multiple of the store's raw reading loop. JSONL's
is the bulk-work issue's settled target: a log keeps no index, and every question about it
is a fold (``serve`` and ``import`` into SQLite are the answer for big logs)."""

APPEND_P95_MS = 2.0
"""One append at the head of a large session, at the 95th percentile (the bulk-work issue)."""


def append_latency_row(stored: StoredSession, appends: int = 200) -> Row:
    """``appends`` single-event appends, each a new call's request, at the head of a copy of
    the stored SQLite session, each one its own durable transaction: their p95."""
    copy = Path(stored.source).with_name("appended.sqlite")
    copy.write_bytes(Path(stored.source).read_bytes())
    times = []
    with SQLiteEventStore(copy) as store:
        last = stored.events
        for number in range(appends):
            event = ToolInvocationRequestedEvent(
                invocation_id=InvocationId(f"appended-{number}"),
                tool_name="read_file",
                tier=Tier.AUTO,
                request=REQUEST,
            )
            started = time.perf_counter()
            store.append(stored.session_id, [event], expected_sequence=last).unwrap()
            times.append(time.perf_counter() - started)
            last += 1
    copy.unlink()
    times.sort()
    p50, p95 = times[len(times) // 2] * 1000, times[int(len(times) * 0.95)] * 1000
    return Row(
        f"{stored.kind}: one append at the head",
        f"{stored.events:,}",
        f"p50 {p50:.2f} ms, p95 {p95:.2f} ms ({appends} appends)",
        "-",
        None,
        f"p95 <= {APPEND_P95_MS:g} ms",
        p95 <= APPEND_P95_MS,
    )


def replay_rows(stored: StoredSession, repeat: int) -> tuple[list[Row], float]:
    """A full replay and a cold repository ``get``, against the raw loop; and the raw
    loop's seconds, which the command rows are judged against."""
    raw = timed(stored.raw, repeat)
    compiled = stored.compiled_seconds = timed(stored.raw_compiled, repeat)
    baseline = f"{rate(stored.events, raw)} (rows + json.loads)"
    store = stored.open_store()
    try:
        replay = timed(
            lambda: EventReplayer(store).replay(stored.session_id, ToolProjector()).unwrap(),
            repeat,
        )
    finally:
        getattr(store, "close", lambda: None)()

    def cold_get() -> None:
        # A new store object and repository each time: nothing kept from the last call.
        fresh = stored.open_store()
        try:
            DefaultToolRepository(EventReplayer(fresh)).get(stored.session_id).unwrap()
        finally:
            getattr(fresh, "close", lambda: None)()

    get = timed(cold_get, repeat)
    size = f"{stored.events:,}"
    rows = [
        Row(
            f"{stored.kind} raw read, compiled parser (the floor)",
            size,
            f"{rate(stored.events, compiled)} (rows + msgspec)",
            baseline,
            compiled / raw,
            "-",
            None,
        ),
        at_most(
            f"{stored.kind} full replay to the final state",
            size,
            rate(stored.events, replay),
            baseline,
            ratio=replay / raw,
            limit=REPLAY_LIMITS[stored.kind],
        ),
    ]
    if stored.kind != "JSONL":  # a plain log has no index: its get is the replay above
        rows.append(
            at_most(
                f"{stored.kind} cold DefaultToolRepository.get",
                size,
                f"{get:.2f} s",
                f"{raw:.2f} s (rows + json.loads)",
                ratio=get / raw,
                limit=0.5,
            )
        )
    return rows, raw


def parallel_rows(total: int, directory: Path, repeat: int = 1) -> list[Row]:
    """``replay_all`` over four sessions with one and with two worker processes, the two
    measured in turn ``repeat`` times (the medians): a busy machine then slows both alike."""
    path = directory / "many.sqlite"
    with SQLiteEventStore(path) as store:
        for number in range(4):
            events = session(total // 4, name=f"worker-{number}")
            for start in range(0, len(events), 10_000):
                store.import_events(events[start : start + 10_000]).unwrap()
        times: dict[tuple[int, bool], list[float]] = {}
        for _ in range(repeat):
            for workers in (1, 2):
                for summarized in (False, True):
                    times.setdefault((workers, summarized), []).append(
                        timed(
                            lambda w=workers, s=summarized: replay_all(
                                store, ToolProjector(), workers=w, summarize=summary if s else None
                            ),
                            1,
                        )
                    )
    one, two, one_summary, two_summary = (
        statistics.median(times[key]) for key in ((1, False), (2, False), (1, True), (2, True))
    )
    return [
        Row(
            "replay_all, 4 sessions, 2 workers",
            f"{total:,}",
            f"{two:.2f} s",
            f"{one:.2f} s (1 worker)",
            one / two,
            f">= {PARALLEL_SPEED_UP:g}x faster",
            one / two >= PARALLEL_SPEED_UP,
        ),
        Row(
            "replay_all + summarize, 2 workers",
            f"{total:,}",
            f"{two_summary:.2f} s",
            f"{one_summary:.2f} s (1 worker)",
            one_summary / two_summary,
            f">= {PARALLEL_SPEED_UP:g}x faster",
            one_summary / two_summary >= PARALLEL_SPEED_UP,
        ),
    ]


PARALLEL_SPEED_UP = 1.6
"""Two workers against one, for ``replay_all`` (issue 40)."""


def summary(replay: object) -> tuple[int, int]:
    """What a worker sends back with ``summarize``: the last sequence and the invocation count."""
    return replay.last_sequence, len(replay.state)  # type: ignore[attr-defined]
