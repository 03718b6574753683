"""Rows for many sessions in a database store: listing, usage by day, search, the page's
answers, and the full-text index's size and upkeep (issues 55 and 56's targets).

A SQLite file and a PostgreSQL schema are each filled with the same generated sessions
(`generated`), then asked:

* the first page of ``sessions`` (30) with no filter and with each filter, p95 of 20;
* ``usage --by day`` over everything, added up by the database (`usage_of`), the median
  of five; and for reference, from the activity windows read into Python (`usage_rows`);
* ``search``: 100 words drawn from the data (a random value's random word) and 100
  phrases (two of a value's words in a row), p95, 30 hits at most;
* the page's list and usage, through the serve application (`catalog_page`);
* the index's size against the text it indexes (every searched value's UTF-8 bytes);
* the upkeep: importing 200 sessions with the index against the same without it
  (`index_upkeep`).

A store named by ``--catalog-file`` or ``--catalog-schema`` is kept, and reused by a later
run of the same size (filling 10 million events takes most of an hour).
"""

from __future__ import annotations

import json
import os
import random
import statistics
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass
from datetime import UTC, timedelta
from pathlib import Path
from typing import Any

from correx_tools import SQLiteEventStore
from correx_tools.core.catalog.listing import SessionQuery
from correx_tools.core.catalog.usage import Report, usage_rows
from correx_tools.shell.catalog.picking import usage_of
from correx_tools.shell.replay.prices import shipped_prices
from correx_tools.shell.stores.sql.store import SqlEventStore

from .catalog_page import page_rows
from .generated import START, fill
from .index_upkeep import upkeep
from .stored import postgres_database
from .table import Row


@dataclass(frozen=True)
class Sizes:
    """What the group fills and where it keeps it."""

    sessions: int
    events: int
    upkeep_sessions: int = 200
    file: Path | None = None
    """The SQLite file kept (filled when it is not there)."""
    schema: str | None = None
    """The PostgreSQL schema kept, in the server's own database (filled when empty)."""

    @property
    def label(self) -> str:
        """The rows' size cell."""
        return f"{self.sessions:,} sessions, {self.events / 1e6:g}M events"


def p95(work: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median and 95th percentile of ``runs`` timings, in milliseconds."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.95))]


def _under(name: str, size: str, ms: float, limit: float | None, what: str = "p95") -> Row:
    if limit is None:
        return Row(name, size, f"{what} {ms:.1f} ms", "-", None, "-", None)
    return Row(name, size, f"{what} {ms:.1f} ms", "-", ms / limit, f"<= {limit:g} ms",
               ms <= limit)  # fmt: skip


def asked(prefix: str, store: SqlEventStore, size: str, sample: Sequence[list[str]]) -> list[Row]:
    """The listing's, usage's and search's rows."""
    rows = []
    latest = START + timedelta(days=50)
    filters = {
        "no filter": SessionQuery(),
        "--agent": SessionQuery(agent="claude-code"),
        "--project": SessionQuery(project="project-17"),
        "--model": SessionQuery(model="opus"),
        "--since/--until": SessionQuery(since=latest, until=latest + timedelta(days=2)),
        "--failed": SessionQuery(failed=True),
        "--machine": SessionQuery(machine="nowhere"),
    }
    for label, query in filters.items():
        _, slow = p95(lambda q=query: store.listed(q, limit=30), 20)
        rows.append(_under(f"{prefix}: sessions first page, {label}", size, slow, 100))
    report = Report(by="day", local=lambda t: t.astimezone(UTC), prices=shipped_prices())

    def by_day() -> object:
        return usage_of(store, SessionQuery(), report)

    def windows_by_day() -> object:
        entries = store.activity(SessionQuery())
        return usage_rows(entries, "day", local=report.local, prices=report.prices)

    middle, _ = p95(by_day, 5)
    rows.append(_under(f"{prefix}: usage --by day, everything", size, middle, 300, "median"))
    middle, _ = p95(windows_by_day, 3)
    rows.append(_under(f"{prefix}: usage --by day from the windows in Python (reference)",
                       size, middle, None, "median"))  # fmt: skip
    rng = random.Random(11)
    chosen = [rng.choice(value) for value in rng.choices(sample, k=100)]
    _, word = p95(lambda: store.search(chosen.pop(), limit=30), 100)
    rows.append(_under(f"{prefix}: search, a word drawn from the data", size, word, 100))
    pairs = []
    for value in rng.choices([v for v in sample if len(v) > 1], k=100):
        at = rng.randrange(len(value) - 1)
        pairs.append(f'"{value[at]} {value[at + 1]}"')
    _, phrase = p95(lambda: store.search(pairs.pop(), limit=30), 100)
    rows.append(_under(f"{prefix}: search, a phrase drawn from the data", size, phrase, 300))
    return rows


def size_row(name: str, size: str, index: int, text: int) -> Row:
    """The index's bytes against the text's."""
    ratio = index / text
    return Row(name, size, f"{index / 1e6:.1f} MB", f"{text / 1e6:.1f} MB of text", ratio,
               "<= 0.3x", ratio <= 0.3)  # fmt: skip


Counted = tuple[int, list[list[str]]]
"""The bytes of text the generated sessions give the index, and a sample of the values'
words (the search's questions)."""


def _filled(store: SqlEventStore, sizes: Sizes, where: str, known: list[Counted]) -> Counted:
    """The store filled, or found filled by an earlier run of the same size (its text
    counted again from the same sessions, once for both stores: ``known``)."""
    held = len(store.sessions())
    if held not in (0, sizes.sessions):
        raise SystemExit(f"{where} holds {held:,} sessions, not {sizes.sessions:,}: "
                         "name another, or the size it was filled at")  # fmt: skip
    if held and not known:
        known[:] = [kept] if (kept := _kept_count(sizes)) is not None else []
    if held and known:
        return known[0]
    seconds, text, sample = fill(None if held else store, sizes.sessions, sizes.events)
    print(f"# {where}: {'counted' if held else 'filled'} in {seconds:.0f} s", flush=True)
    known[:] = [(text, sample)]
    if sizes.file is not None:
        counted = {"sessions": sizes.sessions, "events": sizes.events, "text": text,
                   "sample": sample}  # fmt: skip
        _count_file(sizes.file).write_text(json.dumps(counted), encoding="utf-8")
    return text, sample


def _count_file(path: Path) -> Path:
    """Where the count of a kept store's sessions is kept beside it (generating ten million
    events again to count them takes minutes)."""
    return path.with_name(path.name + ".counted.json")


def _kept_count(sizes: Sizes) -> Counted | None:
    """The count kept beside the kept SQLite file, if it is of these sizes."""
    path = None if sizes.file is None else _count_file(sizes.file)
    if path is None or not path.exists():
        return None
    kept = json.loads(path.read_text(encoding="utf-8"))
    if (kept["sessions"], kept["events"]) != (sizes.sessions, sizes.events):
        return None
    return int(kept["text"]), [list(value) for value in kept["sample"]]


def sqlite_rows(directory: Path, sizes: Sizes, known: list[Counted]) -> list[Row]:
    """SQLite's rows: its file filled (or the kept one reused), asked, then the upkeep."""
    path = sizes.file or directory / "catalog.sqlite"
    prefix = "SQLite catalog"
    with SQLiteEventStore(path) as store:
        text, sample = _filled(store, sizes, str(path), known)
        rows = asked(prefix, store, sizes.label, sample)
        rows += page_rows(prefix, store, str(path), sizes.label)
    rows.append(size_row(f"{prefix}: full-text index size", sizes.label, sqlite_size(path), text))
    count = iter(range(1_000))
    rows.append(upkeep(f"{prefix}: full-text index upkeep (import)",
                       lambda: SQLiteEventStore(directory / f"upkeep-{next(count)}.sqlite"),
                       sizes.upkeep_sessions))  # fmt: skip
    return rows


def sqlite_size(path: Path) -> int:
    """The bytes of the FTS5 table's pages."""
    import sqlite3  # noqa: PLC0415 - only this measure reads the file directly

    with sqlite3.connect(path) as connection:
        # By name: dbstat reads only the tables named (the file holds ten times more).
        return sum(
            int(connection.execute("SELECT SUM(pgsize) FROM dbstat WHERE name = ?",
                                   (f"search_words_{part}",)).fetchone()[0] or 0)
            for part in ("data", "idx", "config", "docsize", "content")
        )  # fmt: skip


@contextmanager
def _postgres(sizes: Sizes) -> Iterator[str | None]:
    """The server's own database where a kept schema is named, else a new one for the run."""
    if sizes.schema is None:
        with postgres_database() as url:
            yield url
        return
    dsn = os.environ.get("CORREX_BENCH_POSTGRES_DSN") or os.environ.get("CORREX_TEST_POSTGRES_DSN")
    if not dsn:
        raise SystemExit("--catalog-schema needs CORREX_BENCH_POSTGRES_DSN (the server)")
    yield dsn


def postgres_rows(sizes: Sizes, known: list[Counted]) -> list[Row]:
    """PostgreSQL's rows: its schema filled (or the kept one reused), asked, the upkeep."""
    from correx_tools import PostgresEventStore  # noqa: PLC0415 - the optional extra

    prefix = "PostgreSQL catalog"
    with _postgres(sizes) as dsn:
        if dsn is None:
            return [Row(f"{prefix}: rows", sizes.label, "-", "no server", None, "-", None)]
        schemas: list[str] = []

        def fresh() -> SqlEventStore:
            schemas.append(f"bench_{uuid.uuid4().hex[:12]}")
            made = PostgresEventStore(dsn, schema=schemas[-1])
            made.init_db()
            return made

        try:
            kept = sizes.schema or f"bench_{uuid.uuid4().hex[:12]}"
            if sizes.schema is None:
                schemas.append(kept)
            store = PostgresEventStore(dsn, schema=kept)
            store.init_db()
            text, sample = _filled(store, sizes, f"schema {kept}", known)
            with _connection(dsn) as connection:
                for table in ("search", "catalog", "activity", "search_runs", "models"):
                    connection.execute(f'VACUUM ANALYZE "{kept}".correx_{table}')
            rows = asked(prefix, store, sizes.label, sample)
            rows += page_rows(prefix, store, "postgresql://", sizes.label)
            store.close()
            rows.append(size_row(f"{prefix}: full-text index size", sizes.label,
                                 postgres_size(dsn, kept), text))  # fmt: skip
            rows.append(upkeep(f"{prefix}: full-text index upkeep (import)", fresh,
                               sizes.upkeep_sessions))  # fmt: skip
        finally:
            with _connection(dsn) as connection:
                for schema in schemas:
                    connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    return rows


def postgres_size(dsn: str, schema: str) -> int:
    """The bytes of the search table, its TOAST and its indexes."""
    with _connection(dsn) as connection:
        row = connection.execute(
            "SELECT pg_total_relation_size(%s)", (f'"{schema}".correx_search',)
        ).fetchone()
    return int(row[0] or 0)


def _connection(dsn: str) -> Any:
    import psycopg  # noqa: PLC0415 - the optional extra

    return psycopg.connect(dsn, autocommit=True)


def catalog_rows(directory: Path, sizes: Sizes) -> list[Row]:
    """Every row of the group: SQLite's, then PostgreSQL's."""
    known: list[Counted] = []
    return sqlite_rows(directory, sizes, known) + postgres_rows(sizes, known)
