"""``import`` of a large database session in parts (split at its checkpoints, each part read,
checked, encoded and indexed at once, then written in order): what the one-pass import writes,
or the error it gives.

The property draws a session, its checkpoint spacing, the batch a part reads
and damage at a drawn sequence (to the events or to the index), and, in turn,
another session already in DEST that asks for one of the same ids, and holds
the copy in parts to the copy in one pass: the same result, and DEST the same
row for row (nothing, after an error). The parts run here; the command below
runs them in real worker processes, on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from correx_tools import SessionId, SQLiteEventStore, StoredEvent
from correx_tools.shell.stores.port import StoreReadError
from correx_tools.shell.stores.sql.copy_parts import CopiedSession
from correx_tools.shell.stores.sql.parts import Part

from .strategies import completed, requested, started, stored
from .test_cli import run
from .test_parts_kills import killed_worker, said_in_one_line
from .test_verify_parts import Here, S, damaged, long_session, made
from .test_verify_parts import stores as drawn_stores


class Counted:
    """A source store that counts the sessions read whole (the one-pass copy)."""

    def __init__(self, store: SQLiteEventStore) -> None:
        self.store, self.read_whole = store, 0

    def parts_to_copy(
        self, session_id: SessionId, pieces: int, *, batch: int, smallest: int | None
    ) -> tuple[type, int, list[Part]] | None:
        return self.store.parts_to_copy(session_id, pieces, batch=batch, smallest=smallest)

    def work_part(self, task: str, part: Part) -> Any:
        return self.store.work_part(task, part)

    def read_decoded(self, session_id: SessionId, *, after: int = 0) -> Iterator[StoredEvent]:
        self.read_whole += 1
        return self.store.read_decoded(session_id, after=after)


def rows_of(path: Path) -> list[list[tuple[Any, ...]]]:
    """Every row DEST keeps, but where a row happens to lie."""
    connection = sqlite3.connect(path)
    try:
        columns = [row[1] for row in connection.execute("PRAGMA table_info(session_catalog)")]
        return [
            [
                tuple(v for column, v in zip(columns, row, strict=True) if column != "number")
                if "session_catalog" in query
                else row
                for row in connection.execute(query).fetchall()
            ]
            for query in (
                "SELECT session_id, sequence, recorded_at, type, version, data, kind, "
                "invocation_id, label, code, effect, chain FROM events ORDER BY 1, 2",
                "SELECT * FROM invocations ORDER BY 1",
                "SELECT * FROM checkpoints ORDER BY 1, 2",
                "SELECT * FROM session_heads ORDER BY 1",
                # The catalog, folded anew after a copy in parts, as one pass keeps it (but
                # for its number, the key of its words in the index: given as written).
                "SELECT * FROM session_catalog ORDER BY 1",
                "SELECT * FROM session_models ORDER BY 1, 2",
                "SELECT * FROM session_spent ORDER BY 1, 2",
                "SELECT * FROM session_activity ORDER BY 1, 2, 3",
            )
        ]
    finally:
        connection.close()


def dest_with(path: Path, interval: int, clash: str | None) -> Path:
    """DEST, holding a session that asks for ``clash`` when one is given."""
    path.unlink(missing_ok=True)
    with SQLiteEventStore(path, checkpoint_interval=interval) as store:
        if clash is not None:
            store.import_events(stored([requested(clash)], session="other")).unwrap()
    return path


def copied(source: Path, dest: Path, interval: int, batch: int | None) -> tuple[str, int]:
    """What an import of every session of ``source`` into ``dest`` says (one pass when
    ``batch`` is ``None``, else in parts of that batch), and how many it read whole."""
    reader = Counted(SQLiteEventStore(source, read_only=True))
    try:
        with SQLiteEventStore(dest, checkpoint_interval=interval) as store:
            sessions = reader.store.sessions()
            if batch is None:
                events = (e for s in sessions for e in reader.read_decoded(s))
                result = store.import_events(events)
            else:
                copies = [
                    CopiedSession(reader, s, Here(), store.layout, batch=batch, smallest=1)
                    for s in sessions
                ]
                result = store.import_copies(copies)
        said = repr(result).replace(str(dest), "DEST")
    except StoreReadError as error:
        said = f"unreadable at {error.sequence}: {error.error}"
    finally:
        reader.store.close()
    return said, reader.read_whole


TWO_PARTS = [requested("inv-0"), started("inv-0")]


def splits(source: Path, batch: int) -> bool:
    """Whether the session is long enough to be copied in parts."""
    with SQLiteEventStore(source, read_only=True) as store:
        return store.parts_to_copy(S, 3 * 4, batch=batch, smallest=1) is not None


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(drawn=drawn_stores(), clashing=st.booleans())
# A part that takes a call's state from a damaged row, in the last part (no part after it
# starts where it ends): only the join's check of what each part took catches it.
@example(drawn=(TWO_PARTS, 1, 1, "a call's row ended at its request", 1), clashing=False)
def test_a_copy_in_parts_writes_what_one_pass_writes(
    tmp_path: Path, drawn: Any, clashing: bool
) -> None:
    events, interval, batch, damage, at = drawn
    source = made(tmp_path, events, interval, damage, at)
    ids = [e.invocation_id for e in events if hasattr(e, "invocation_id")]
    clash = ids[at % len(ids)] if clashing and ids else None
    one = dest_with(tmp_path / "one.sqlite", interval, clash)
    many = dest_with(tmp_path / "many.sqlite", interval, clash)
    (said, whole), split = copied(source, many, interval, batch), splits(source, batch)
    assert said == copied(source, one, interval, None)[0]
    assert rows_of(many) == rows_of(one)
    if damage == "none" and clash is None:
        assert whole == (0 if split else 1)  # a sound session split is copied in parts


def test_a_sound_session_is_copied_in_parts_and_a_damaged_one_in_one_pass(
    tmp_path: Path,
) -> None:
    # The property holds only if the parts are what is written: a sound session is never
    # read whole, and one the parts cannot vouch for is.
    calls = [f"c{n}" for n in range(10)]
    events = [e for call in calls for e in (requested(call), started(call), completed(call))]
    source = made(tmp_path, events, 2, "none", 1)
    dest = dest_with(tmp_path / "dest.sqlite", 2, None)
    said, whole = copied(source, dest, 2, 5)
    assert (said, whole) == ("<Success: 30>", 0)

    sound = rows_of(dest)
    broken = made(tmp_path, events, 2, "an event's effect", 17)
    dest = dest_with(tmp_path / "dest.sqlite", 2, None)
    said, whole = copied(broken, dest, 2, 5)
    assert (said, whole) == ("<Success: 30>", 1)  # read again, by the events' own JSON
    assert rows_of(dest) == sound  # whose effect the copy works out afresh


@pytest.fixture(scope="module")
def long_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return long_session(tmp_path_factory.mktemp("import") / "long.sqlite")


def imported(source: Path | str, dest: Path | str, workers: int) -> tuple[int, dict[str, Any]]:
    """The command's status and what it says, DEST's name taken out."""
    result = run("import", str(source), str(dest), "--json", "--workers", str(workers), ok=False)
    said = json.loads(result.stdout) | {"dest": ""} if result.returncode == 0 else {}
    return result.returncode, said or {"error": result.stderr.replace(str(dest), "DEST")}


def test_import_in_worker_processes_writes_what_one_process_writes(
    long_store: Path, tmp_path: Path
) -> None:
    one, many = tmp_path / "one.sqlite", tmp_path / "many.sqlite"
    said = imported(long_store, one, 1)
    assert imported(long_store, many, 2) == said
    assert said == (0, {"source": str(long_store), "dest": "", "sessions": {S: 50_983},
                        "events": 50_983, "refused_files": 0})  # fmt: skip
    assert rows_of(many) == rows_of(one)
    assert "intact" in run("verify", str(many), "--workers", "1").stdout


@pytest.mark.slow  # two 51,000-event imports, of a session damaged in its third part
def test_an_event_changed_in_a_later_part_is_refused_as_one_process_refuses_it(
    long_store: Path, tmp_path: Path
) -> None:
    path = damaged(
        long_store,
        tmp_path,
        "DROP TRIGGER events_changed",
        "UPDATE events SET data = '{\"invocation_id\": 7}' WHERE sequence = 50001",
    )
    one, many = tmp_path / "one.sqlite", tmp_path / "many.sqlite"
    said = imported(path, many, 2)
    assert said == imported(path, one, 1)
    assert (
        said[0] == 1 and "50001" in said[1]["error"] and "nothing was imported" in said[1]["error"]
    )
    assert not one.exists() and not many.exists()


@pytest.mark.slow  # a 51,000-event import in worker processes, each killed as it starts
def test_a_killed_worker_ends_import_in_one_line_and_makes_no_dest(
    long_store: Path, tmp_path: Path
) -> None:
    dest = tmp_path / "dest.sqlite"
    said_in_one_line(killed_worker("import", str(long_store), str(dest)))
    assert list(tmp_path.iterdir()) == []  # neither DEST nor the file it was staged in

    # Into a DEST that exists: what it held before, and nothing more.
    with SQLiteEventStore(dest) as store:
        store.import_events(stored([requested("kept")], session="other")).unwrap()
    before = rows_of(dest)
    said_in_one_line(killed_worker("import", str(long_store), str(dest)))
    assert rows_of(dest) == before


def postgres_rows(url: str) -> dict[str, list[str]]:
    """Every row of every table of the database at ``url``, but where a row happens to lie."""
    import psycopg  # noqa: PLC0415 - only PostgreSQL tests need it

    with psycopg.connect(url) as connection:
        tables = [
            row[0]
            for row in connection.execute(
                "SELECT table_name FROM information_schema.tables WHERE table_schema = 'public'"
            )
        ]
        return {
            table: sorted(
                str(row[0])
                for row in connection.execute(f"SELECT to_jsonb(t) - 'position' FROM {table} t")
            )
            for table in tables
        }


@pytest.mark.slow  # a 51,000-event session written to PostgreSQL, then imported twice
def test_a_postgres_session_is_imported_in_parts(
    long_store: Path, postgres_dsn: str, postgres_schema: str
) -> None:
    import psycopg  # noqa: PLC0415 - only PostgreSQL tests need it

    names = [f"{postgres_schema}_{part}" for part in ("source", "one", "many")]
    params = psycopg.conninfo.conninfo_to_dict(postgres_dsn)
    at = f"postgresql://{params.get('user', 'postgres')}@{params['host']}:{params['port']}"
    source, one, many = (f"{at}/{name}" for name in names)
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        for name in names:
            admin.execute(f'CREATE DATABASE "{name}"')
    try:
        run("import", str(long_store), source, "--workers", "1")
        said = imported(source, one, 1)
        assert said[0] == 0 and said[1]["events"] == 50_983
        assert imported(source, many, 2) == said
        assert postgres_rows(many) == postgres_rows(one)
        assert "intact" in run("verify", many, "--workers", "2").stdout
    finally:
        with psycopg.connect(postgres_dsn, autocommit=True) as admin:
            for name in names:
                admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
