"""``correx-tools verify``, and the rule every read keeps: the answer the events give, or a
refusal — never a silently different answer.

Each test damages a copy of a real store behind its back, the way a stray
``UPDATE``, a half-restored backup or a hand edit would, then holds: verify's
exit status and the line that names the fault; what ``--repair`` does (rebuilds
a damaged index, never touches events and leaves their evidence); and the
answers of the reads, which must be the answers a fold of the events gives.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from correx_tools import (
    DefaultToolRepository,
    EventReplayer,
    InMemoryEventStore,
    JsonlEventLog,
    PostgresEventStore,
    SessionId,
    SQLiteEventStore,
)

from .test_cli import run, run_json

S = SessionId("demo-run01-session-1")
CALL = f"{S}/call-00007"


@pytest.fixture(scope="module")
def pristine(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A demo store of two sessions with checkpoints (about 1,200 events each)."""
    path = tmp_path_factory.mktemp("verify") / "demo.sqlite"
    run("demo", "--db", str(path), "--sessions", "2", "--invocations", "400")
    return path


def answers(store: Any) -> list[object]:
    """What the reads answer about session S: states, summaries, a diff, a history."""
    repository = DefaultToolRepository(EventReplayer(store), strict=False)
    last = repository.last_sequence(S)
    points = [0, 1, 37, 1000, 1001, last // 2, last]
    return [
        [repository.at(S, k).unwrap() for k in points],
        [repository.summary(S, at=k).unwrap() for k in points],
        repository.latest(S, 20, at=last // 2).unwrap(),
        repository.diff(S, 10, last).unwrap(),
        repository.history(S, CALL).unwrap(),  # type: ignore[arg-type]
        resolved(repository),
    ]


def resolved(repository: DefaultToolRepository) -> list[object]:
    """What the command finds for an invocation's name: the id, or why not."""
    with repository.view(S) as view:
        return [str(view.resolve(name)) for name in (CALL, CALL[:-1], "never-such")]


def folded(path: Path) -> list[object]:
    """The same answers from the events alone (decoded in full, folded in memory)."""
    source = SQLiteEventStore(path, read_only=True)
    memory = InMemoryEventStore()
    memory.import_events(e for s in source.sessions() for e in source.read_decoded(s)).unwrap()
    source.close()
    return answers(memory)


def index_of(path: Path) -> str:
    """A digest of every derived table and column: what a repair must leave alone."""
    digest = hashlib.sha256()
    with sqlite3.connect(path) as connection:
        for query in (
            "SELECT * FROM invocations ORDER BY 1",
            "SELECT * FROM checkpoints ORDER BY 1, 2",
            # Not the stale flag: marking a damaged session's index stale keeps its evidence.
            "SELECT session_id, indexed_through, requested, started, completed, failed, "
            "rejected, refused, chain, seal FROM session_heads ORDER BY 1",
            "SELECT kind, invocation_id, label, code, effect, chain FROM events ORDER BY position",
        ):
            digest.update(repr(connection.execute(query).fetchall()).encode())
    return digest.hexdigest()


def damaged(pristine: Path, tmp_path: Path, *statements: str) -> Path:
    path = tmp_path / "damaged.sqlite"
    shutil.copy(pristine, path)
    with sqlite3.connect(path) as connection:
        for statement in statements:
            connection.execute(statement)
    return path


def where(sequence: int) -> str:
    return f"session_id = '{S}' AND sequence = {sequence}"


INDEX_DAMAGE: dict[str, tuple[str, ...]] = {
    "an invocation row's status updated": (
        f"UPDATE invocations SET status = 4 WHERE invocation_id = '{CALL}'",
    ),
    "an invocation row's tool name edited": (
        f"UPDATE invocations SET tool_name = 'forged' WHERE invocation_id = '{CALL}'",
    ),
    "an invocation row deleted": (f"DELETE FROM invocations WHERE invocation_id = '{CALL}'",),
    "an invocation row moved to another session": (
        f"UPDATE invocations SET session_id = 'demo-run01-session-2' "
        f"WHERE invocation_id = '{CALL}'",
    ),
    "a checkpoint deleted": (f"DELETE FROM checkpoints WHERE session_id = '{S}'",),
    "a checkpoint's counts edited": (
        f"UPDATE checkpoints SET completed = completed + 1 WHERE session_id = '{S}'",
    ),
    "a session's head deleted": (f"DELETE FROM session_heads WHERE session_id = '{S}'",),
    "an event's typed columns forged": (
        f"UPDATE events SET kind = 4, label = 'tampered', code = 0 WHERE {where(24)}",
    ),
    "an event's effect edited": (f"UPDATE events SET effect = 14 WHERE {where(23)}",),
    "an invocation row's kept chain edited": (
        f"UPDATE invocations SET request_chain = request_chain + 1 WHERE invocation_id = '{CALL}'",
    ),
    "an invocation row's kept CRC edited": (
        f"UPDATE invocations SET end_crc = end_crc + 1 WHERE invocation_id = '{CALL}'",
    ),
}


# Half the kinds of damage in the quick pass, every one in the slow.
@pytest.mark.parametrize(
    "damage",
    [name if number % 2 == 0 else pytest.param(name, marks=pytest.mark.slow)
     for number, name in enumerate(INDEX_DAMAGE)],
)  # fmt: skip
def test_a_damaged_index_is_named_read_around_and_repaired(
    pristine: Path, tmp_path: Path, damage: str
) -> None:
    path = damaged(pristine, tmp_path, *INDEX_DAMAGE[damage])
    store = SQLiteEventStore(path, read_only=True)
    assert answers(store) == folded(path)
    store.close()

    result = run("verify", str(path), ok=False)
    assert result.returncode == 1
    faults = [line for line in result.stdout.splitlines() if line.startswith("session ")]
    assert faults, result.stdout
    # Each names S (and, for a row moved away, the session it was moved to as well).
    assert any(f"session {S!r}" in line for line in faults)
    assert all(f"session {S!r}" in line or "demo-run01-session-2" in line for line in faults)
    assert "--repair rebuilds it" in result.stdout

    repaired = run("verify", str(path), "--repair")
    assert f"rebuilt the index of session {S!r}" in repaired.stdout
    again = run_json("verify", str(path))
    assert again["intact"] is True
    assert SQLiteEventStore(path, read_only=True).verify_session(S).intact


def test_an_intact_store_is_intact_and_says_how_much_was_checked(pristine: Path) -> None:
    document = run_json("verify", str(pristine))
    assert document["intact"] is True
    assert [s["faults"] for s in document["sessions"]] == [[], [], []]
    text = run("verify", str(pristine)).stdout
    events = sum(s["events"] for s in document["sessions"])
    assert f"{events:,} events" in text and text.rstrip().endswith("intact")


def test_an_event_changed_after_it_was_written_is_named_and_never_repaired(
    pristine: Path, tmp_path: Path
) -> None:
    path = damaged(
        pristine,
        tmp_path,
        "DROP TRIGGER events_changed",
        f"UPDATE events SET data = replace(data, 'tests/', 'other/') WHERE {where(1)}",
    )
    # No read hands the changed event on: each names it, as a log refuses a line whose
    # checksum fails.
    for command in (["replay", str(path), S], ["audit", str(path)], ["export", str(path), S]):
        refused = run(*command, ok=False)
        assert refused.returncode in {1, 2} and "Traceback" not in refused.stderr
        assert f"session {S!r}, sequence 1): the event changed after it was" in refused.stderr
    result = run("verify", str(path), ok=False)
    assert result.returncode == 1
    assert f"session {S!r}, sequence 1: the event changed after it was written" in result.stdout
    evidence = index_of(path)
    repair = run("verify", str(path), "--repair", ok=False)
    assert repair.returncode == 1
    assert "nothing repairs events" in repair.stdout
    assert index_of(path) == evidence  # the chain that names the change survives
    assert "sequence 1: the event changed" in run("verify", str(path), ok=False).stdout
    # reindex will not make a new index vouch for the change either, unless told it was meant.
    reindexed = run("reindex", str(path), ok=False)
    assert reindexed.returncode == 1
    assert "sequence 1: the event changed after it was written" in reindexed.stdout
    assert index_of(path) == evidence
    run("reindex", str(path), "--accept-edits")
    assert run_json("verify", str(path))["intact"] is True
    # Said to be meant, the edit is read as the events now say.
    assert answers(SQLiteEventStore(path, read_only=True)) == folded(path)


def test_a_missing_event_is_a_gap_every_read_names_and_no_rebuild_hides(
    pristine: Path, tmp_path: Path
) -> None:
    path = damaged(
        pristine, tmp_path, "DROP TRIGGER events_deleted", f"DELETE FROM events WHERE {where(50)}"
    )
    assert (
        f"session {S!r}, sequence 50: the event is missing"
        in run("verify", str(path), ok=False).stdout
    )
    refused = run("replay", str(path), S, "--at", "60", ok=False)
    assert refused.returncode == 1 and "expected sequence 50" in refused.stderr
    assert "Traceback" not in refused.stderr
    evidence = index_of(path)
    rebuilt = run("reindex", str(path), ok=False)
    assert rebuilt.returncode == 1
    assert (
        f"session {S!r}, sequence 50" in rebuilt.stdout
        and "kept the index it had" in rebuilt.stdout
    )
    assert run("verify", str(path), "--repair", ok=False).returncode == 1
    assert index_of(path) == evidence
    # After every rebuild, every read still names the gap.
    assert "expected sequence 50" in run("replay", str(path), S, ok=False).stderr
    assert "sequence 50" in run("verify", str(path), ok=False).stdout


def test_reindex_brings_back_a_deleted_invocation_row(pristine: Path, tmp_path: Path) -> None:
    path = damaged(pristine, tmp_path, f"DELETE FROM invocations WHERE invocation_id = '{CALL}'")
    run("reindex", str(path))
    assert run_json("verify", str(path))["intact"] is True
    with sqlite3.connect(path) as connection:
        assert connection.execute(
            "SELECT COUNT(*) FROM invocations WHERE invocation_id = ?", (CALL,)
        ).fetchone() == (1,)


def test_import_copies_the_events_own_data_not_forged_columns(
    pristine: Path, tmp_path: Path
) -> None:
    path = damaged(pristine, tmp_path, *INDEX_DAMAGE["an event's typed columns forged"])
    copy = tmp_path / "copy.sqlite"
    run("import", str(path), str(copy))
    assert run_json("verify", str(copy))["intact"] is True
    assert answers(SQLiteEventStore(copy, read_only=True)) == folded(pristine)


def test_a_damaged_line_of_a_log_is_named_with_its_session(pristine: Path, tmp_path: Path) -> None:
    log = tmp_path / "demo.jsonl"
    run("import", str(pristine), str(log))
    assert run_json("verify", str(log))["intact"] is True
    lines = log.read_bytes().splitlines(keepends=True)
    envelope = json.loads(lines[40])
    at = lines[40].index(b'Z","sequence"')  # the last digit of the line's timestamp
    lines[40] = (
        lines[40][: at - 1] + (b"7" if lines[40][at - 1 : at] != b"7" else b"8") + lines[40][at:]
    )
    lines[41] = b"{not json\n"  # a line that names no session is the log's own fault
    log.write_bytes(b"".join(lines))
    result = run("verify", str(log), ok=False)
    assert result.returncode == 1
    said = result.stdout.splitlines()
    session, sequence = envelope["session_id"], envelope["sequence"]
    assert (
        f"session {session!r}, sequence {sequence}: cannot be read: {log}:41: checksum "
        "mismatch: the line was changed or damaged" in said
    )
    assert any(line.startswith("the store: cannot be read: ") and ":42: " in line for line in said)
    assert "in 1 session and the store itself" in result.stdout
    # The log is read on past the damage: every session is checked.
    checked = json.loads(run("verify", str(log), "--json", ok=False).stdout)["sessions"]
    assert {c["session_id"] for c in checked} == {"", *SQLiteEventStore(pristine).sessions()}


@pytest.fixture
def postgres_copy(
    pristine: Path, postgres_dsn: str, postgres_schema: str
) -> Iterator[tuple[str, Callable[[str], None]]]:
    """The demo in a PostgreSQL database of this test's own: its URL, and a way to run SQL."""
    import psycopg  # noqa: PLC0415 - only PostgreSQL tests need it

    name = postgres_schema
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    params = psycopg.conninfo.conninfo_to_dict(postgres_dsn)
    url = f"postgresql://{params.get('user', 'postgres')}@{params['host']}:{params['port']}/{name}"
    source = SQLiteEventStore(pristine, read_only=True)
    store = PostgresEventStore(url)
    store.import_events(e for s in source.sessions() for e in source.read_decoded(s)).unwrap()
    store.close()
    source.close()

    def execute(statement: str) -> None:
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute(statement)

    try:
        yield url, execute
    finally:
        with psycopg.connect(postgres_dsn, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


KEY = f"sha256('{S}'::bytea)"
PG_DAMAGE = {
    "an invocation row's status updated": (
        f"UPDATE correx_invocations SET status = 4 WHERE invocation_key = sha256('{CALL}'::bytea)"
    ),
    "an event's typed columns forged": (
        f"UPDATE correx_events SET kind = 4, label = 'tampered'::bytea "
        f"WHERE session_key = {KEY} AND sequence = 24"
    ),
    "a checkpoint's counts edited": (
        f"UPDATE correx_checkpoints SET completed = completed + 1 WHERE session_key = {KEY}"
    ),
}


@pytest.mark.parametrize(
    "damage",
    # The quick run damages one PostgreSQL row; the other two are in the slow run (CI).
    [name if number == 0 else pytest.param(name, marks=pytest.mark.slow)
     for number, name in enumerate(PG_DAMAGE)],
)  # fmt: skip
def test_a_damaged_postgres_index_is_named_read_around_and_repaired(
    pristine: Path, postgres_copy: tuple[str, Callable[[str], None]], damage: str
) -> None:
    url, execute = postgres_copy
    assert run_json("verify", url)["intact"] is True
    execute(PG_DAMAGE[damage])
    store = PostgresEventStore(url, read_only=True)
    assert answers(store) == folded(pristine)
    store.close()
    result = run("verify", url, ok=False)
    assert result.returncode == 1 and f"session {S!r}" in result.stdout
    assert f"rebuilt the index of session {S!r}" in run("verify", url, "--repair").stdout
    assert run_json("verify", url)["intact"] is True


def test_a_postgres_event_changed_behind_the_store_is_never_repaired(
    postgres_copy: tuple[str, Callable[[str], None]],
) -> None:
    url, execute = postgres_copy
    execute("ALTER TABLE correx_events DISABLE TRIGGER USER")
    execute(
        "UPDATE correx_events SET data = replace(data, 'tests/', 'other/') "
        f"WHERE session_key = {KEY} AND sequence = 1"
    )
    result = run("verify", url, ok=False)
    assert "sequence 1: the event changed after it was written" in result.stdout
    assert run("verify", url, "--repair", ok=False).returncode == 1
    assert "sequence 1: the event changed" in run("verify", url, ok=False).stdout


def test_a_jsonl_store_and_memory_are_checked_event_by_event(tmp_path: Path) -> None:
    log = JsonlEventLog(tmp_path / "x.jsonl")
    from .strategies import completed, requested, started, stored  # noqa: PLC0415

    log.import_events(stored([requested("a"), started("a"), completed("a")], session="s")).unwrap()
    assert run_json("verify", str(log.path))["sessions"][0]["events"] == 3
