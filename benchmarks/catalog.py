"""Rows for many sessions in a database store: listing, usage by day, search, and the
full-text index's size and upkeep (issue 55's targets).

A store is filled with generated sessions (`many_sessions`: each a described
Claude Code session of turns: a prompt, the assistant's words, a usage record, and a
shell call with its output, over forty projects, four models and sixty days, the words
drawn from a vocabulary of 5,000), then asked:

* the first page of ``sessions`` (30) with no filter and with each filter, p95 of 20;
* ``usage --by day`` over everything, added up by the database (`usage_of`), and for
  reference from the activity windows read into Python (`usage_rows`);
* ``search``: 100 words drawn from the data (a random value's random word) and 100
  phrases (two of a value's words in a row), p95, 30 hits at most;
* the index's size against the text it indexes (every value's UTF-8 bytes);
* the upkeep: importing 200 sessions with the index against the same without it.

Run: ``python -m benchmarks.catalog [--sessions N] [--events N] [--postgres DSN]``.
"""

from __future__ import annotations

import argparse
import random
import statistics
import tempfile
import time
import uuid
from collections.abc import Callable, Iterator, Sequence
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any
from unittest import mock

from correx_tools import (
    InvocationId,
    SessionId,
    SQLiteEventStore,
    StoredEvent,
    Tier,
    ToolExecutionCompletedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolReceipt,
    ToolRequest,
)
from correx_tools.core.catalog.listing import SessionQuery
from correx_tools.core.catalog.searched import text_of
from correx_tools.core.catalog.usage import Report, usage_rows
from correx_tools.core.catalog.words import words
from correx_tools.core.lifecycle.conversation import (
    AssistantText,
    Prompt,
    TokenUsage,
    Usage,
    conversation_event,
)
from correx_tools.core.lifecycle.description import Description, description_event
from correx_tools.shell.catalog.picking import usage_of
from correx_tools.shell.replay.prices import shipped_prices
from correx_tools.shell.stores.sql import catalog as kept_catalog
from correx_tools.shell.stores.sql.store import SqlEventStore

from .table import Row, machine, render

START = datetime(2026, 9, 1, tzinfo=UTC)
MODELS = ("claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5", "gpt-5")
EVENTS_PER_TURN = 7


def vocabulary(rng: random.Random, size: int = 5_000) -> list[str]:
    """Made-up words of 3 to 10 letters."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(3, 10))) for _ in range(size)]


def many_sessions(sessions: int, events: int, seed: int = 55) -> Iterator[list[StoredEvent]]:
    """``sessions`` generated sessions of about ``events`` events in all (see the module
    docstring), one list a session."""
    rng = random.Random(seed)
    vocab = vocabulary(rng)
    each = max(EVENTS_PER_TURN + 1, events // sessions)

    def said(count: int) -> str:
        return " ".join(rng.choice(vocab) for _ in range(count))

    for number in range(sessions):
        session = SessionId(str(uuid.UUID(int=rng.getrandbits(128))))
        at = START + timedelta(minutes=rng.randrange(60 * 24 * 60))
        model = rng.choice(MODELS)
        project = f"/home/dev/project-{rng.randrange(40)}"
        payloads: list[object] = [
            description_event(Description(format="claude-code", cwd=project, started_at=at))
        ]
        call = 0
        while len(payloads) < each:
            invocation = InvocationId(f"{session}-{call}")
            call += 1
            usage = TokenUsage(input=rng.randrange(5_000), output=rng.randrange(2_000),
                               cache_read=rng.randrange(50_000))  # fmt: skip
            payloads += [
                conversation_event(Prompt(text=said(rng.randint(5, 30)))),
                conversation_event(AssistantText(text=said(rng.randint(10, 60)), model=model)),
                conversation_event(Usage(usage=usage, model=model)),
                ToolInvocationRequestedEvent(
                    invocation_id=invocation,
                    tool_name="bash",
                    tier=Tier.AUTO,
                    request=ToolRequest(
                        tool_name="bash", arguments={"command": "run " + said(rng.randint(2, 8))}
                    ),
                ),
                ToolExecutionStartedEvent(invocation_id=invocation),
                ToolExecutionCompletedEvent(
                    invocation_id=invocation,
                    receipt=ToolReceipt(
                        output=said(rng.randint(10, 80)), exit_code=0 if rng.random() > 0.05 else 1
                    ),
                ),
            ]
        del payloads[each:]
        yield [
            StoredEvent(session_id=session, sequence=n, recorded_at=at + timedelta(seconds=3 * n),
                        event=payload)
            for n, payload in enumerate(payloads, 1)
        ]  # fmt: skip
        del number


def fill(
    store: SqlEventStore | None, sessions: int, events: int
) -> tuple[float, int, list[list[str]]]:
    """The seconds the import took, the bytes of text indexed, and a sample of the values'
    words (for the search's questions); with no ``store``, the same sessions counted only
    (a store filled by an earlier run)."""
    text_bytes, sample = 0, []
    rng = random.Random(7)
    started = time.perf_counter()
    chunk: list[StoredEvent] = []
    for session in many_sessions(sessions, events):
        for stored in session:
            found = text_of(stored.event)
            if found is not None:
                text_bytes += len(found[2].encode())
                if rng.random() < 0.001:
                    sample.append(words(found[2]))
        if store is None:
            continue
        chunk += session
        if len(chunk) >= 20_000:
            store.import_events(chunk).unwrap()
            chunk = []
    if chunk and store is not None:
        store.import_events(chunk).unwrap()
    return time.perf_counter() - started, text_bytes, sample


def p95(work: Callable[[], object], runs: int) -> tuple[float, float]:
    """Median and 95th percentile of ``runs`` timings, in milliseconds."""
    times = []
    for _ in range(runs):
        started = time.perf_counter()
        work()
        times.append((time.perf_counter() - started) * 1000)
    times.sort()
    return statistics.median(times), times[min(len(times) - 1, int(len(times) * 0.95))]


def _under(name: str, size: str, ms: float, limit: float, what: str = "p95") -> Row:
    return Row(name, size, f"{what} {ms:.1f} ms", "-", ms / limit, f"<= {limit:g} ms",
               ms <= limit)  # fmt: skip


def asked(store: SqlEventStore, size: str, sample: Sequence[list[str]]) -> list[Row]:
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
        rows.append(_under(f"sessions first page, {label}", size, slow, 100))
    report = Report(by="day", local=lambda t: t.astimezone(UTC), prices=shipped_prices())

    def by_day() -> object:
        return usage_of(store, SessionQuery(), report)

    def windows_by_day() -> object:
        entries = store.activity(SessionQuery())
        return usage_rows(entries, "day", local=report.local, prices=report.prices)

    middle, _ = p95(by_day, 5)
    rows.append(_under("usage --by day, everything", size, middle, 300, "median"))
    middle, _ = p95(windows_by_day, 3)
    rows.append(_under("usage --by day from the windows (reference)", size, middle, 300,
                       "median"))  # fmt: skip
    rng = random.Random(11)
    chosen = [rng.choice(value) for value in rng.choices(sample, k=100)]
    _, word = p95(lambda: store.search(chosen.pop(), limit=30), 100)
    rows.append(_under("search, a word drawn from the data", size, word, 100))
    pairs = []
    for value in rng.choices([v for v in sample if len(v) > 1], k=100):
        at = rng.randrange(len(value) - 1)
        pairs.append(f'"{value[at]} {value[at + 1]}"')
    _, phrase = p95(lambda: store.search(pairs.pop(), limit=30), 100)
    rows.append(_under("search, a phrase drawn from the data", size, phrase, 300))
    return rows


class _NoWords:
    """A full-text index that keeps nothing (the upkeep's baseline), numbering as the
    store's own does."""

    def __init__(self, kept: Any) -> None:
        self.numbered = kept.numbered
        self.positions = kept.positions

    def written(self, cursor: Any, rows: Any) -> None:
        """Nothing kept."""

    def dropped(self, cursor: Any, number: int, rows: int) -> None:
        """Nothing kept."""

    def cleared(self, cursor: Any) -> None:
        """Nothing kept."""

    @staticmethod
    def wasted(cursor: Any) -> bool:
        """Never."""
        return False


def upkeep(make: Callable[[], SqlEventStore], size: str) -> Row:
    """Importing 200 sessions with the full-text index against without it (three of each,
    in turns: the medians)."""
    sessions = list(many_sessions(200, 200 * 100, seed=3))

    def load(store: SqlEventStore) -> float:
        started = time.perf_counter()
        for session in sessions:
            store.import_events(session).unwrap()
        return time.perf_counter() - started

    # In turns, the median of three each: a shared machine's load moves between runs.
    withs, withouts = [], []
    for _ in range(3):
        withs.append(load(make()))
        plain = make()
        dialect: Any = plain._database.dialect  # the baseline swaps its index out
        dialect.search = _NoWords(dialect.search)
        with mock.patch.object(kept_catalog, "write_words", return_value=0):
            withouts.append(load(plain))
    with_words, without = statistics.median(withs), statistics.median(withouts)
    ratio = with_words / without
    return Row("full-text index upkeep (import)", f"{size}, 200 sessions",
               f"{with_words:.2f} s", f"{without:.2f} s without", ratio, "<= 1.5x",
               ratio <= 1.5)  # fmt: skip


def sqlite_size(path: Path) -> int:
    """The bytes of the FTS5 table's pages."""
    import sqlite3  # noqa: PLC0415 - only this measure reads the file directly

    with sqlite3.connect(path) as connection:
        row = connection.execute(
            "SELECT SUM(pgsize) FROM dbstat WHERE name LIKE 'search_words%'"
        ).fetchone()
    return int(row[0] or 0)


def postgres_size(dsn: str, schema: str) -> int:
    """The bytes of the search table, its TOAST and its indexes."""
    import psycopg  # noqa: PLC0415 - the optional extra

    with psycopg.connect(dsn) as connection:
        row = connection.execute(
            "SELECT pg_total_relation_size(%s)", (f'"{schema}".correx_search',)
        ).fetchone()
    return int(row[0] or 0)


def size_row(name: str, size: str, index: int, text: int) -> Row:
    """The index's bytes against the text's."""
    ratio = index / text
    return Row(name, size, f"{index / 1e6:.1f} MB", f"{text / 1e6:.1f} MB of text", ratio,
               "<= 0.3x", ratio <= 0.3)  # fmt: skip


def main() -> None:
    """Fill each store, ask it, print the table."""
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--sessions", type=int, default=10_000)
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument("--postgres", metavar="DSN", help="also measure PostgreSQL")
    parser.add_argument("--skip-sqlite", action="store_true")
    parser.add_argument("--file", type=Path, help="the SQLite file, filled if it is not there")
    parser.add_argument("--schema", help="the PostgreSQL schema, kept, filled if empty")
    args = parser.parse_args()
    size = f"{args.sessions:,} sessions, {args.events / 1e6:g}M events"
    rows: list[Row] = []
    directory = Path(tempfile.mkdtemp())
    if not args.skip_sqlite:
        path = args.file or directory / "many.sqlite"
        filled = path.exists()
        store = SQLiteEventStore(path)
        seconds, text, sample = fill(None if filled else store, args.sessions, args.events)
        print(f"sqlite filled in {seconds:.0f} s", flush=True)
        rows += _named("sqlite", asked(store, size, sample))
        rows.append(size_row("sqlite: full-text index size", size, sqlite_size(path), text))
        store.close()
        count = iter(range(1_000))
        rows.append(
            _named_one(
                "sqlite",
                upkeep(
                    lambda: SQLiteEventStore(directory / f"upkeep-{next(count)}.sqlite"), "sqlite"
                ),
            )
        )
    if args.postgres:
        rows += postgres_rows(args.postgres, args, size)
    print(machine())
    print(render(rows))


def postgres_rows(dsn: str, args: argparse.Namespace, size: str) -> list[Row]:
    """PostgreSQL's rows: its store filled (or the kept schema's reused), then asked."""
    rows: list[Row] = []
    from correx_tools import PostgresEventStore  # noqa: PLC0415 - the optional extra

    schemas: list[str] = []

    def fresh() -> SqlEventStore:
        schema = f"bench_{uuid.uuid4().hex[:12]}"
        schemas.append(schema)
        made = PostgresEventStore(dsn, schema=schema)
        made.init_db()
        return made

    try:
        kept = args.schema or f"bench_{uuid.uuid4().hex[:12]}"
        if not args.schema:
            schemas.append(kept)
        store = PostgresEventStore(dsn, schema=kept)
        store.init_db()
        filled = bool(store.sessions())
        seconds, text, sample = fill(None if filled else store, args.sessions, args.events)
        print(f"postgres filled in {seconds:.0f} s", flush=True)
        with _connection(dsn) as connection:
            for table in ("search", "catalog", "activity", "search_runs", "models"):
                connection.execute(f'VACUUM ANALYZE "{kept}".correx_{table}')
        rows += _named("postgres", asked(store, size, sample))
        rows.append(size_row("postgres: full-text index size", size,
                             postgres_size(dsn, kept), text))  # fmt: skip
        rows.append(_named_one("postgres", upkeep(fresh, "postgres")))
    finally:
        with _connection(dsn) as connection:
            for schema in schemas:
                connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')
    return rows


def _named(prefix: str, rows: list[Row]) -> list[Row]:
    return [_named_one(prefix, row) for row in rows]


def _named_one(prefix: str, row: Row) -> Row:
    row.name = f"{prefix}: {row.name}"
    return row


def _connection(dsn: str) -> Any:
    import psycopg  # noqa: PLC0415 - the optional extra

    return psycopg.connect(dsn, autocommit=True)


if __name__ == "__main__":
    main()
