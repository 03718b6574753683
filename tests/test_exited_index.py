"""The calls that exited non-zero are counted through a partial index of their own: a
SQLite file and a PostgreSQL schema use it; a store made before it answers the same
from its rows, is not written by a read, and gains it when next opened for writing."""

from __future__ import annotations

import sqlite3
from pathlib import Path

from correx_tools import DefaultToolRepository, EventReplayer, PostgresEventStore, SQLiteEventStore
from correx_tools.core.tools.ids import SessionId
from correx_tools.shell.stores.port import EventStore

from .stores import postgres_index
from .strategies import completed, failed, requested, started

SESSION = SessionId("exits")


def _events() -> list[object]:
    """Twelve calls: every third exits 1, every fifth fails, one is left open."""
    events: list[object] = []
    for n in range(12):
        call = f"call-{n}"
        events += [requested(call), started(call)]
        if n == 11:
            continue
        events.append(failed(call) if n % 5 == 4 else completed(call, exit_code=int(n % 3 == 0)))
    return events


def _exits_at_every_point(store: EventStore) -> list[int]:
    repository = DefaultToolRepository(EventReplayer(store))
    return [
        repository.summary(SESSION, at=at).unwrap().exited_nonzero
        for at in range(len(_events()) + 1)
    ]


def _expected() -> list[int]:
    """By the events themselves: a Completed event whose receipt's exit code is not 0."""
    counts, seen = [0], 0
    for event in _events():
        receipt = getattr(event, "receipt", None)
        seen += receipt is not None and receipt.exit_code not in (None, 0)
        counts.append(seen)
    return counts


def _plan(path: Path) -> str:
    with sqlite3.connect(path) as connection:
        rows = connection.execute(
            "EXPLAIN QUERY PLAN SELECT COUNT(*) FROM invocations WHERE session_id = ? "
            "AND status = 3 AND ended_seq <= ? AND end_code <> 0",
            (SESSION, 10),
        ).fetchall()
    return " ".join(str(row[-1]) for row in rows)


def test_a_sqlite_store_counts_the_exits_through_their_own_index(tmp_path: Path) -> None:
    path = tmp_path / "exits.sqlite"
    with SQLiteEventStore(path) as store:
        store.append(SESSION, _events(), expected_sequence=0)
        assert _exits_at_every_point(store) == _expected()
    assert "invocations_exited" in _plan(path)


def test_a_sqlite_store_made_before_the_index_answers_the_same_and_gains_it_on_writing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "exits.sqlite"
    with SQLiteEventStore(path) as store:
        store.append(SESSION, _events(), expected_sequence=0)
    with sqlite3.connect(path) as connection:  # as a store of this layout made before it
        connection.execute("DROP INDEX invocations_exited")
    before = path.read_bytes()
    with SQLiteEventStore(path, read_only=True) as store:
        assert _exits_at_every_point(store) == _expected()
    assert path.read_bytes() == before  # a read writes nothing, the index included
    assert "invocations_exited" not in _plan(path)
    with SQLiteEventStore(path) as store:  # the first writer adds it, nothing rebuilt
        assert _exits_at_every_point(store) == _expected()
    assert "invocations_exited" in _plan(path)


def test_a_postgres_store_made_before_the_index_gains_it_on_writing(
    postgres_dsn: str, postgres_schema: str
) -> None:
    def present(*, drop: bool = False) -> bool:
        name = "correx_invocations_exited"
        return postgres_index(postgres_dsn, postgres_schema, name, drop=drop)

    with PostgresEventStore(postgres_dsn, schema=postgres_schema) as store:
        store.append(SESSION, _events(), expected_sequence=0)
        assert _exits_at_every_point(store) == _expected()
    assert present()
    assert not present(drop=True)
    with PostgresEventStore(postgres_dsn, schema=postgres_schema, read_only=True) as store:
        assert _exits_at_every_point(store) == _expected()
    assert not present()
    with PostgresEventStore(postgres_dsn, schema=postgres_schema) as store:
        assert _exits_at_every_point(store) == _expected()
    assert present()
