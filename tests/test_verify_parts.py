"""``verify`` and ``reindex`` a session at a time in parts (split at its checkpoints, the
parts worked at once, then joined): the very answers of the one-process path.

The property draws a session, its checkpoint spacing, the batch the passes
read, and damage at a drawn sequence (to the events or to the index), and
holds the parted check to the one-process check — every fault, its sequence
and order, the counts — and the parted rebuild to the one-process rebuild:
the same index written, or the same first error. The parts run here (the
split and the join are what is held); the commands below run them in real
worker processes.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from correx_tools import (
    OpaqueEvent,
    PostgresEventStore,
    SessionId,
    SQLiteEventStore,
    ToolInvocationRequestedEvent,
)
from correx_tools.shell.stores.port import StoreReadError
from correx_tools.shell.stores.sql.parts import Part, plan
from correx_tools.shell.stores.sql.rebuild_parts import rebuild_in_parts
from correx_tools.shell.stores.sql.rebuilding import DamagedEvents, rebuild
from correx_tools.shell.stores.sql.verify_parts import verify_in_parts
from correx_tools.shell.stores.sql.verifying import verify_session

from .copies import copy_of
from .strategies import SESSION, completed, failed, requested, started, stored, tool_events
from .test_cli import run

S = SessionId(SESSION)


class Here:
    """Works every part in this process, in the caller's snapshot (as the parent does)."""

    workers = 3

    def __init__(self) -> None:
        self.parts = 0

    def run(self, task: str, parts: Sequence[Part], here: Callable[[Part], Any]) -> list[Any]:
        self.parts += len(parts)
        return [here(part) for part in parts]

    def stream(
        self, task: str, parts: Sequence[Part], here: Callable[[Part], Any]
    ) -> Iterator[Any]:
        return iter(self.run(task, parts, here))


def index_of(path: Path) -> str:
    """A digest of every derived table and column."""
    digest = hashlib.sha256()
    connection = sqlite3.connect(path)
    with connection:
        for query in (
            "SELECT * FROM invocations ORDER BY 1",
            "SELECT * FROM checkpoints ORDER BY 1, 2",
            "SELECT * FROM session_heads ORDER BY 1",
            "SELECT kind, invocation_id, label, code, effect, chain FROM events ORDER BY position",
        ):
            digest.update(repr(connection.execute(query).fetchall()).encode())
    connection.close()
    return digest.hexdigest()


DAMAGE = {
    "none": (),
    "an event's chain": ("UPDATE events SET chain = chain + 1 WHERE sequence = {k}",),
    "an event's effect": ("UPDATE events SET effect = 99 WHERE sequence = {k}",),
    "an event's JSON": (
        "DROP TRIGGER events_changed",
        "UPDATE events SET data = data || ' ' WHERE sequence = {k}",
    ),
    "an event that cannot be read": (
        "DROP TRIGGER events_changed",
        "UPDATE events SET data = '[' WHERE sequence = {k}",
    ),
    "a gap": ("DROP TRIGGER events_deleted", "DELETE FROM events WHERE sequence = {k}"),
    "a checkpoint": ("UPDATE checkpoints SET completed = completed + 1 WHERE sequence >= {k}",),
    "an invocation row": ("UPDATE invocations SET status = 4 WHERE sequence >= {k}",),
    "an invocation row gone": ("DELETE FROM invocations WHERE sequence >= {k}",),
    "a call's row ended at its request": (
        "UPDATE invocations SET ended_seq = sequence, status = 4 WHERE sequence >= {k}",
    ),
    "a call's row never started": (
        "UPDATE invocations SET started_seq = NULL WHERE sequence >= {k}",
    ),
    "an open call's row ended": (
        "UPDATE invocations SET ended_seq = {k}, status = 3 WHERE ended_seq IS NULL",
    ),
}


@st.composite
def stores(draw: st.DrawFn) -> tuple[list[Any], int, int, str, int]:
    """Events (calls that run across many parts, and any events about a few ids), the
    checkpoint interval, the batch, the damage and the sequence it is at."""
    events: list[Any] = []
    for n in range(draw(st.integers(0, 12))):
        call = f"long-{n}"
        events += [requested(call), started(call)]
        events += draw(st.lists(tool_events(), max_size=8))
        events.append(completed(call))
    events += draw(st.lists(tool_events(), min_size=1, max_size=30))
    # An id requested twice is refused by the store: the second request becomes a start.
    seen: set[str] = set()
    for index, event in enumerate(events):
        if isinstance(event, dict):  # an event of another kind, kept as it is
            events[index] = OpaqueEvent(type="note", version=1, data=event)
        elif isinstance(event, ToolInvocationRequestedEvent):
            if event.invocation_id in seen:
                events[index] = started(event.invocation_id)
            seen.add(event.invocation_id)
    interval = draw(st.integers(1, 4))
    batch = draw(st.integers(1, 6))
    damage = draw(st.sampled_from(sorted(DAMAGE)))
    return events, interval, batch, damage, draw(st.integers(1, len(events)))


def made(tmp: Path, events: list[Any], interval: int, damage: str, at: int) -> Path:
    path = tmp / "store.sqlite"
    path.unlink(missing_ok=True)
    with SQLiteEventStore(path, checkpoint_interval=interval) as store:
        store.import_events(stored(events)).unwrap()
    connection = sqlite3.connect(path)
    with connection:
        for statement in DAMAGE[damage]:
            connection.execute(statement.format(k=at))
    connection.close()  # the write-ahead log folded in: a copy of the file holds the damage
    return path


def rebuilt(path: Path, build: Callable[..., Any]) -> tuple[str, str]:
    """What a rebuild of the session says (its head, or its first error), and the index it
    leaves once its transaction ends (rolled back after an error, as `reindex` does)."""
    store = SQLiteEventStore(path)
    database = store._database
    said = ""
    try:
        with database.writing() as cursor:
            said = repr(build(database.dialect, cursor))
    except DamagedEvents as damage:
        said = f"damaged: {damage}"
    except StoreReadError as error:
        said = f"unreadable at {error.sequence}: {error.error}"
    store.close()
    return said.replace(str(path), "STORE"), index_of(path)


@settings(
    max_examples=60, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(drawn=stores())
def test_parts_answer_as_the_whole_session_does(tmp_path: Path, drawn: Any) -> None:
    events, interval, batch, damage, at = drawn
    path = made(tmp_path, events, interval, damage, at)
    store = SQLiteEventStore(path, read_only=True)
    database = store._database
    runner = Here()
    with database.snapshot() as cursor:
        d = database.dialect
        whole = verify_session(d, cursor, S, interval, batch=batch)
        parted = verify_in_parts(d, cursor, S, interval, runner, batch=batch, smallest=1)
    store.close()
    assert parted == whole

    copy = tmp_path / "copy.sqlite"
    shutil.copy(path, copy)
    one = rebuilt(path, lambda d, c: rebuild(d, c, S, interval, batch=batch))
    many = rebuilt(
        copy,
        lambda d, c: rebuild_in_parts(d, c, S, interval, runner=runner, batch=batch, smallest=1),
    )
    assert many == one


def test_a_session_long_enough_is_split_and_its_parts_joined(tmp_path: Path) -> None:
    # The property holds only if sessions are split at all: this one is, in 3 parts.
    events = []
    for n in range(10):
        call = f"c{n}"
        events += [requested(call), started(call), completed(call)]
    path = made(tmp_path, events, 2, "none", 1)
    store = SQLiteEventStore(path, read_only=True)
    database = store._database
    runner = Here()
    with database.snapshot() as cursor:
        check = verify_in_parts(database.dialect, cursor, S, 2, runner, batch=5, smallest=1)
    assert check.intact and check.events == 30 and check.invocations == 10
    assert runner.parts == 3


def test_no_part_passes_the_largest_whatever_the_sessions_length(tmp_path: Path) -> None:
    # What a part holds on its way back is bounded by its size: a longer session is cut
    # into more parts, not longer ones (at 1M events, eight parts held 230 MB).
    events = []
    for n in range(10):
        call = f"c{n}"
        events += [requested(call), started(call), completed(call)]
    path = made(tmp_path, events, 2, "none", 1)
    assert spans(path, 2, smallest=1) == [(0, 20), (20, 30)]
    assert spans(path, 2, smallest=1, largest=10) == [(0, 10), (10, 20), (20, 30)]
    # An interval that meets the batch every 15 events: the bound takes the longest part
    # under it (15) over the smallest part's 30.
    longer = [*events]
    for n in range(10, 20):
        longer += [requested(f"c{n}"), started(f"c{n}"), completed(f"c{n}")]
    path = made(tmp_path, longer, 3, "none", 1)
    assert spans(path, 3, smallest=20) == [(0, 30), (30, 60)]
    assert spans(path, 3, smallest=20, largest=20) == [(0, 15), (15, 30), (30, 45), (45, 60)]


def spans(path: Path, interval: int, **sizes: int) -> list[tuple[int, int]] | None:
    """Where `plan` cuts the store's session in two pieces or more, in batches of 5."""
    store = SQLiteEventStore(path, read_only=True)
    with store._database.snapshot() as cursor:
        parts = plan(store._database.dialect, cursor, S, interval, 2, batch=5, **sizes)
    return None if parts is None else [(part.start, part.end) for part in parts]


def long_session(path: Path) -> Path:
    """51,000 events in one session: split in three parts (at 25,000 and 50,000), with
    calls requested in the first part and ended in the last (built once in a process, then
    copied)."""
    return copy_of("long session", _write_long_session, path)


def _write_long_session(path: Path) -> None:
    events: list[Any] = [requested(f"long-{n}") for n in range(5)]
    for n in range(16_990):
        call = f"c{n}"
        events += [requested(call), started(call), completed(call, exit_code=n % 3)]
    events += [started("long-0"), completed("long-0"), failed("long-1")]
    events += [started(f"long-{n}") for n in range(2, 5)]
    events += [completed("long-2")] * 2  # the second one refused
    with SQLiteEventStore(path) as store:
        store.import_events(stored(events)).unwrap()


@pytest.fixture(scope="module")
def long_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return long_session(tmp_path_factory.mktemp("parts") / "long.sqlite")


def damaged(source: Path, tmp_path: Path, *statements: str) -> Path:
    path = tmp_path / "damaged.sqlite"
    shutil.copy(source, path)
    connection = sqlite3.connect(path)
    with connection:
        for statement in statements:
            connection.execute(statement)
    connection.close()
    return path


@pytest.mark.parametrize(
    "damage",
    [
        ("UPDATE invocations SET status = 4 WHERE sequence = 30006",),
        pytest.param(
            (
                "DROP TRIGGER events_changed",
                "UPDATE events SET data = data || ' ' WHERE sequence = 50001",
            ),
            marks=pytest.mark.slow,  # one kind of damage in the quick pass, both in the slow
        ),
    ],
    ids=["an invocation row in the second part", "an event in the third part"],
)
def test_verify_in_worker_processes_says_what_one_process_says(
    long_store: Path, tmp_path: Path, damage: tuple[str, ...]
) -> None:
    path = damaged(long_store, tmp_path, *damage)
    one = run("verify", str(path), "--json", "--workers", "1", ok=False)
    many = run("verify", str(path), "--json", "--workers", "2", ok=False)
    assert (many.returncode, many.stdout) == (one.returncode, one.stdout)
    assert one.returncode == 1 and '"intact": false' in one.stdout


@pytest.mark.parametrize(
    "damage",
    [
        pytest.param(
            (
                "UPDATE invocations SET status = 4 WHERE sequence = 6",
                "DELETE FROM invocations WHERE sequence >= 30006",
            ),
            marks=pytest.mark.slow,  # one kind of damage in the quick pass, both in the slow
        ),
        ("DROP TRIGGER events_deleted", "DELETE FROM events WHERE sequence = 50500"),
    ],
    ids=["the index of the later parts", "a gap in the third part"],
)
def test_reindex_in_worker_processes_writes_what_one_process_writes(
    long_store: Path, tmp_path: Path, damage: tuple[str, ...]
) -> None:
    path = damaged(long_store, tmp_path, *damage)
    copy = tmp_path / "copy.sqlite"
    shutil.copy(path, copy)
    one = run("reindex", str(path), "--json", "--workers", "1", ok=False)
    many = run("reindex", str(copy), "--json", "--workers", "2", ok=False)
    said = [json.loads(r.stdout) | {"source": "", "seconds": 0} for r in (one, many)]
    assert (many.returncode, said[1]) == (one.returncode, said[0])
    assert index_of(copy) == index_of(path)


@pytest.mark.slow  # a 51,000-event session written to PostgreSQL
def test_a_postgres_session_is_checked_and_rebuilt_in_parts(
    long_store: Path, postgres_dsn: str, postgres_schema: str
) -> None:
    import psycopg  # noqa: PLC0415 - only PostgreSQL tests need it

    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{postgres_schema}"')
    params = psycopg.conninfo.conninfo_to_dict(postgres_dsn)
    url = (
        f"postgresql://{params.get('user', 'postgres')}@{params['host']}:{params['port']}/"
        f"{postgres_schema}"
    )
    try:
        source = SQLiteEventStore(long_store, read_only=True)
        with PostgresEventStore(url) as store:
            store.import_events(source.read_decoded(S)).unwrap()
        source.close()
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute(
                "UPDATE correx_invocations SET status = 4 "
                "WHERE invocation_key = sha256('c10000'::bytea)"
            )
        one = run("verify", url, "--json", "--workers", "1", ok=False)
        many = run("verify", url, "--json", "--workers", "2", ok=False)
        assert (many.returncode, many.stdout) == (one.returncode, one.stdout)
        assert "'c10000' does not match" in one.stdout
        run("reindex", url, "--workers", "2")
        assert json.loads(run("verify", url, "--json", "--workers", "1").stdout)["intact"]
    finally:
        with psycopg.connect(postgres_dsn, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{postgres_schema}" WITH (FORCE)')
