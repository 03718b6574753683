"""Reads that write nothing: every reading command leaves the store's bytes and its folder as
they were (no ``-wal``, ``-shm`` or journal made or left), works on a read-only file and
folder, answers beside a writer that holds a transaction, and waits for a lock only a
bounded time before saying so in one line."""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from correx_tools import JsonlEventLog, PostgresEventStore, SQLiteEventStore

from .privileges import as_nobody
from .test_cli import run, run_json

SESSION = "demo-run01-session-1"
INVOCATION = f"{SESSION}/call-00003"


def readers(source: str, out: Path) -> list[list[str]]:
    """Every reading command, on ``source``; the files it writes go to ``out``."""
    return [
        ["sessions", source],
        ["replay", source, SESSION],
        ["replay", source, SESSION, "--at", "40", "--json"],
        ["history", source, SESSION, INVOCATION],
        ["diff", source, SESSION, "10", "90"],
        ["stats", source, SESSION],
        ["verify", source],
        ["report", source, SESSION, "-o", str(out / "report.html")],
        ["export", source, SESSION, "--to", "otlp-json", "-o", str(out / "trace.json")],
    ]


def snapshot(folder: Path) -> dict[str, str]:
    """Every file of ``folder`` by name, with a digest of its bytes."""
    return {
        path.name: hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.iterdir())
    }


@pytest.fixture(scope="module")
def shelf() -> Iterator[Path]:
    """A folder anyone may read (the tests below read it as another user, too)."""
    folder = Path(tempfile.mkdtemp(prefix="correx-read-only-"))
    folder.chmod(0o755)
    run("demo", "--db", str(folder / "demo.sqlite"), "--sessions", "2", "--invocations", "60")
    source = SQLiteEventStore(folder / "demo.sqlite", read_only=True)
    JsonlEventLog(folder / "demo.jsonl").import_events(
        event for session in source.sessions() for event in source.read(session)
    ).unwrap()
    source.close()
    yield folder
    for path in folder.rglob("*"):
        path.chmod(0o755 if path.is_dir() else 0o644)
    shutil.rmtree(folder, ignore_errors=True)


@pytest.mark.parametrize("kind", ["sqlite", pytest.param("jsonl", marks=pytest.mark.slow)])
def test_every_reading_command_leaves_the_store_and_its_folder_as_they_were(
    shelf: Path, kind: str, tmp_path: Path
) -> None:
    folder = tmp_path / "store"
    folder.mkdir()
    shutil.copy(shelf / f"demo.{kind}", folder)
    before = snapshot(folder)
    for command in readers(str(folder / f"demo.{kind}"), tmp_path):
        run(*command)
        assert snapshot(folder) == before, command


def test_reading_commands_work_on_a_read_only_file_and_folder(shelf: Path) -> None:
    folder = shelf / "locked"
    folder.mkdir(exist_ok=True)
    store = folder / "demo.sqlite"
    shutil.copy(shelf / "demo.sqlite", store)
    out = Path(tempfile.mkdtemp(prefix="correx-out-"))
    out.chmod(0o777)
    store.chmod(0o444)
    folder.chmod(0o555)
    before = snapshot(folder)
    try:
        for command in readers(str(store), out):
            result = subprocess.run(
                [*as_nobody(), sys.executable, "-m", "correx_tools", *command],
                capture_output=True,
                text=True,
                timeout=300,
                check=False,
                env={**os.environ, "HOME": str(out)},
            )
            assert result.returncode == 0, (command, result.stderr)
            assert snapshot(folder) == before, command
    finally:
        folder.chmod(0o755)
        shutil.rmtree(out, ignore_errors=True)


def test_a_read_beside_a_writer_answers_the_committed_state_and_makes_no_file(
    shelf: Path, tmp_path: Path
) -> None:
    store = tmp_path / "demo.sqlite"
    shutil.copy(shelf / "demo.sqlite", store)
    committed = run_json("replay", str(store), SESSION)
    writer = sqlite3.connect(store, isolation_level=None)
    writer.execute("PRAGMA journal_mode=WAL")
    writer.execute("BEGIN IMMEDIATE")
    writer.execute("DELETE FROM checkpoints")  # uncommitted: no reader may see it
    names = sorted(path.name for path in tmp_path.iterdir())
    try:
        started = time.monotonic()
        assert run_json("replay", str(store), SESSION) == committed
        assert time.monotonic() - started < 30
        assert sorted(path.name for path in tmp_path.iterdir()) == names
    finally:
        writer.execute("ROLLBACK")
        writer.close()


def test_a_read_waits_for_a_held_lock_only_a_bounded_time_then_says_so(
    shelf: Path, tmp_path: Path
) -> None:
    store = tmp_path / "journal.sqlite"
    shutil.copy(shelf / "demo.sqlite", store)
    with sqlite3.connect(store) as connection:
        connection.execute("PRAGMA journal_mode=DELETE")
    writer = sqlite3.connect(store, isolation_level=None)
    writer.execute("BEGIN EXCLUSIVE")
    writer.execute("DELETE FROM checkpoints")
    try:
        started = time.monotonic()
        result = run("sessions", str(store), ok=False)
        waited = time.monotonic() - started
    finally:
        writer.execute("ROLLBACK")
        writer.close()
    assert result.returncode == 1
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert "locked" in result.stderr
    assert waited < 20


@pytest.mark.slow  # SQLite's own is in the quick pass; the server's costs twice its time
def test_postgres_reads_change_no_row(
    shelf: Path, tmp_path: Path, postgres_dsn: str, postgres_schema: str
) -> None:
    import psycopg  # noqa: PLC0415 - only PostgreSQL tests need it

    name = postgres_schema  # a database of this test's own, named like its schema
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    params = psycopg.conninfo.conninfo_to_dict(postgres_dsn)
    url = f"postgresql://{params.get('user', 'postgres')}@{params['host']}:{params['port']}/{name}"
    try:
        source = SQLiteEventStore(shelf / "demo.sqlite", read_only=True)
        store = PostgresEventStore(url)
        store.import_events(e for s in source.sessions() for e in source.read(s)).unwrap()
        store.close()
        source.close()

        def tables() -> str:
            with psycopg.connect(url) as connection:
                digest = hashlib.sha256()
                for (table,) in connection.execute(
                    "SELECT table_name FROM information_schema.tables "
                    "WHERE table_schema = 'public' ORDER BY 1"
                ).fetchall():
                    for row in connection.execute(f'SELECT * FROM public."{table}" ORDER BY 1'):
                        digest.update(repr(row).encode())
                return digest.hexdigest()

        before = tables()
        for command in readers(url, tmp_path):
            run(*command)
        assert tables() == before
    finally:
        with psycopg.connect(postgres_dsn, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


def test_a_write_ahead_log_left_without_its_shared_memory_is_read_or_named(
    tmp_path: Path,
) -> None:
    from correx_tools import SessionId  # noqa: PLC0415

    from .strategies import requested, started  # noqa: PLC0415

    writer = SQLiteEventStore(tmp_path / "live.sqlite")
    writer.append(SessionId("x"), [requested("a"), started("a")], expected_sequence=0).unwrap()
    left, empty = tmp_path / "left", tmp_path / "empty"
    left.mkdir()
    # A copy taken while the writer had it open: its last writes are only in its log.
    shutil.copy(tmp_path / "live.sqlite", left / "w.sqlite")
    shutil.copy(tmp_path / "live.sqlite-wal", left / "w.sqlite-wal")
    writer.close()
    empty.mkdir()
    shutil.copy(tmp_path / "live.sqlite", empty / "w.sqlite")
    (empty / "w.sqlite-wal").write_bytes(b"")
    assert (left / "w.sqlite-wal").stat().st_size > 0
    before = snapshot(left)
    refused = run("sessions", str(left / "w.sqlite"), ok=False)
    assert refused.returncode == 1 and len(refused.stderr.splitlines()) == 1
    assert "holds writes that are not in the file yet" in refused.stderr
    assert f"correx-tools init-db {left / 'w.sqlite'}" in refused.stderr
    assert snapshot(left) == before  # no -shm made
    run("init-db", str(left / "w.sqlite"))  # folds the log in
    assert run_json("sessions", str(left / "w.sqlite"))["sessions"][0]["events"] == 2
    # An empty log holds nothing to read: read at once, and nothing made beside it.
    before = snapshot(empty)
    assert run_json("sessions", str(empty / "w.sqlite"))["sessions"][0]["events"] == 2
    assert snapshot(empty) == before
