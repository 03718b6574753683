"""A team's store: three machines pushing at once into one PostgreSQL database, against a
``COPY`` of the same rows, and the columnar export of all of it.

Each machine is a SQLite store of its own (``sessions`` sessions of 300 events each); three
``correx-tools push`` processes send them at once, each under GNU time for its peak memory.
The floor is PostgreSQL's own bulk load: the events the pushes wrote, copied out and
``COPY``-ed into a bare table of the same columns. Then a push of an unchanged machine (it
sends nothing; and a folder of transcripts, looked at through its cache's manifest),
and ``export --to parquet --events`` of every session against reading the
events' rows themselves, with the export's peak memory and its files' size against the
events table's.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from correx_tools import SQLiteEventStore

from .claude_folder import write_folder
from .many_sessions import _peak
from .sessions import session
from .stored import postgres_database
from .table import Row, at_most, rate

EVENTS = 300
"""Events a session."""
MACHINES = 3
PUSHER_MB = 200
"""The most memory a pusher, or the export, may take (MB)."""


def _machine(path: Path, name: str, sessions: int) -> int:
    """A machine's own store of ``sessions`` sessions; its events."""
    with SQLiteEventStore(path) as store:
        for number in range(sessions):
            store.import_events(session(EVENTS, name=f"{name}-{number:05d}")).unwrap()
    return sessions * EVENTS


def _copy_seconds(url: str) -> float:
    """The events the pushes wrote, copied out, then ``COPY``-ed into a bare table (timed)."""
    import psycopg  # noqa: PLC0415 - the postgres extra

    with psycopg.connect(url, autocommit=True) as connection:
        connection.execute("CREATE TABLE floor_events (LIKE correx_events)")
        with connection.cursor().copy("COPY (SELECT * FROM correx_events) TO STDOUT") as out:
            rows = [bytes(chunk) for chunk in out]
        started = time.perf_counter()
        with connection.cursor().copy("COPY floor_events FROM STDIN") as into:
            for chunk in rows:
                into.write(chunk)
        seconds = time.perf_counter() - started
        connection.execute("DROP TABLE floor_events")
    return seconds


def _read_seconds(url: str) -> tuple[float, int]:
    """Every event's row read through the driver, and the events table's size (bytes)."""
    import psycopg  # noqa: PLC0415

    with psycopg.connect(url) as connection:
        started = time.perf_counter()
        cursor = connection.cursor(name="every_event")
        cursor.itersize = 10_000
        cursor.execute("SELECT * FROM correx_events")
        for _ in cursor:
            pass
        seconds = time.perf_counter() - started
        size = connection.execute(
            "SELECT sum(pg_total_relation_size(relid)) FROM pg_partition_tree('correx_events')"
        ).fetchone()
    return seconds, int(size[0]) if size and size[0] is not None else 0


def team_rows(directory: Path, sessions: int) -> list[Row]:
    """The rows of ``MACHINES`` machines of ``sessions`` sessions each."""
    names = [f"machine{n}" for n in range(MACHINES)]
    stores = {name: directory / f"{name}.sqlite" for name in names}
    events = sum(_machine(path, name, sessions) for name, path in stores.items())
    size = f"{MACHINES} x {sessions:,} sessions x {EVENTS}"
    env = {**os.environ, "TZ": "UTC"}
    command = [sys.executable, "-m", "correx_tools"]
    with postgres_database() as url:
        if url is None:
            return [Row("team push", size, "-", "no server", None, "-", None)]
        subprocess.run([*command, "init-db", url], check=True, capture_output=True, env=env)

        def push(name: str) -> tuple[float, float | None, str]:
            return _peak([*command, "push", str(stores[name]), "--to", url, "--machine", name,
                          "--user", "bench"], env)  # fmt: skip

        started = time.perf_counter()
        with ThreadPoolExecutor(MACHINES) as pool:
            pushed = list(pool.map(push, names))
        ours = time.perf_counter() - started
        floor = _copy_seconds(url)
        peaks = [mb for _, mb, _ in pushed if mb is not None]
        again, _, _ = _peak([*command, "push", str(stores[names[0]]), "--to", url, "--machine",
                             names[0], "--user", "bench"], env)  # fmt: skip
        read, table_bytes = _read_seconds(url)
        out = directory / "tables"
        exported, export_mb, _ = _peak(
            [*command, "export", url, "--to", "parquet", "--events", "-o", str(out)], env
        )
        files = sum(path.stat().st_size for path in out.rglob("*.parquet"))
        folder, transcripts = directory / "claude" / "projects", sessions * MACHINES
        write_folder(folder, transcripts, turns=3)
        transcript_push = [*command, "push", str(folder), "--to", url, "--machine", "laptop",
                           "--cache", str(directory / "cache.sqlite")]  # fmt: skip
        _peak(transcript_push, env)  # the first push fills the cache and sends everything
        unchanged, _, _ = _peak(transcript_push, env)
    rows = [
        at_most("team push: 3 machines at once, over a COPY of the same rows", size,
                rate(events, ours), f"{rate(events, floor)} (COPY)", ratio=ours / floor,
                limit=3.0),
        Row("team push: a re-push of an unchanged machine", size, f"{again:.2f} s",
            "-", None, "<= 2 s", again <= 2.0),
        Row("team push: a re-push of an unchanged folder of transcripts",
            f"{transcripts:,} transcripts", f"{unchanged:.2f} s", "-", None, "<= 2 s",
            unchanged <= 2.0),
        at_most("team export --to parquet --events, over reading the rows", size,
                f"{exported:.1f} s", f"{read:.1f} s (every event's row read)",
                ratio=exported / read, limit=2.0),
        Row("team export: Parquet files over the events table", size,
            f"{files / 1e6:.1f} MB", f"{table_bytes / 1e6:.1f} MB", files / table_bytes,
            "<= 0.4x", files / table_bytes <= 0.4),
    ]  # fmt: skip
    if peaks:
        rows.append(Row("team push: each pusher's peak memory", size, f"{max(peaks):.0f} MB",
                        "-", None, f"<= {PUSHER_MB} MB", max(peaks) <= PUSHER_MB))  # fmt: skip
    if export_mb is not None:
        rows.append(Row("team export: peak memory", size, f"{export_mb:.0f} MB", "-", None,
                        f"<= {PUSHER_MB} MB", export_mb <= PUSHER_MB))  # fmt: skip
    return rows
