"""An event edited where it is stored is never handed on as if it had been recorded.

Eight bytes of a real SQLite file are changed in place (``rm -rf /`` becomes ``ls -la /``:
no SQL, so no trigger marks anything), and every command that hands an event's payload on
(audit, history, replay, report, export, compare, the debugger) stops with one line naming
the session and the sequence, as each does for the same edit in a JSON Lines log. A
prompt edited the same way stops the reads of the conversation. PostgreSQL, edited with its
triggers disabled, answers the same.
"""

from __future__ import annotations

from pathlib import Path

import psycopg
import pytest

from correx_tools import SessionId, SQLiteEventStore, ToolInvocationRequestedEvent
from correx_tools.shell.stores.port import StoreReadError

from .commands import correx
from .hostile_calls import hostile_session
from .serving import Served

SESSION = "edited"
CALLS = [("Bash", {"command": "rm -rf /"}), ("Read", {"file_path": "README.md"})]


def imported(folder: Path, destination: str) -> str:
    transcript = hostile_session(folder / "t.jsonl", SESSION, CALLS)
    result = correx("import-transcript", str(transcript), destination)
    assert result.returncode == 0, result.stderr
    return destination


def edited_in_place(path: Path, before: bytes, after: bytes, copies: int = 1) -> None:
    """``before`` (found ``copies`` times in the file) replaced by ``after``, of the same
    length, in the file's own bytes."""
    data = path.read_bytes()
    assert len(before) == len(after) and data.count(before) == copies
    path.write_bytes(data.replace(before, after))


@pytest.fixture(scope="module")
def edited(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, int]:
    """The store, its command edited in the file, and the edited request's sequence."""
    folder = tmp_path_factory.mktemp("edited")
    store = Path(imported(folder, str(folder / "e.sqlite")))
    with SQLiteEventStore(store, read_only=True) as reader:
        (sequence,) = [
            stored.sequence for stored in reader.read(SessionId(SESSION))
            if isinstance(stored.event, ToolInvocationRequestedEvent)
            and stored.event.invocation_id == f"{SESSION}/toolu_0001"
        ]  # fmt: skip
    assert correx("audit", str(store)).returncode == 1  # found, before the edit
    edited_in_place(store, b"rm -rf /", b"ls -la /")
    return store, sequence


def _named(stderr: str, sequence: int) -> None:
    lines = stderr.strip().splitlines()
    assert len(lines) == 1 and "Traceback" not in stderr, stderr
    assert f"session {SESSION!r}" in lines[0] and f"sequence {sequence}" in lines[0], lines[0]
    assert "changed after it was written" in lines[0], lines[0]


@pytest.mark.parametrize(
    ("command", "status"),
    [
        (["audit", "{store}"], 2),
        (["history", "{store}", SESSION, "toolu_0001"], 1),
        (["replay", "{store}", SESSION], 1),
        (["report", "{store}", SESSION, "-o", "{folder}/r.html"], 1),
        (["export", "{store}", SESSION, "-o", "{folder}/x.json"], 1),
        (["compare", "{store}", SESSION, SESSION], 1),
    ],
    ids=lambda value: value[0] if isinstance(value, list) else str(value),
)
def test_every_command_names_the_edited_event_and_fails(
    edited: tuple[Path, int], command: list[str], status: int
) -> None:
    store, sequence = edited
    args = [part.format(store=store, folder=store.parent) for part in command]
    result = correx(*args)
    assert result.returncode == status, result.stderr
    _named(result.stderr, sequence)


def test_the_debugger_names_the_edited_event(edited: tuple[Path, int]) -> None:
    store, sequence = edited
    server = Served(store)
    try:
        for path, query in (
            (f"/api/v1/sessions/{SESSION}/state", {}),
            ("/api/v1/audit", {"session": SESSION}),
            (f"/api/v1/sessions/{SESSION}/invocations/{SESSION}%2Ftoolu_0001/view", {}),
        ):
            status, body, _ = server.get(path, query)
            assert status == 409, (path, status, body)
            assert f"sequence {sequence}" in body["error"], body
            assert "changed after it was written" in body["error"], body
    finally:
        assert server.stop()[0] == 0


def test_the_same_edit_in_a_log_is_refused_as_well(tmp_path: Path) -> None:
    log = Path(imported(tmp_path, str(tmp_path / "e.jsonl")))
    edited_in_place(log, b"rm -rf /", b"ls -la /")
    result = correx("audit", str(log))
    assert result.returncode == 2 and "checksum mismatch" in result.stderr


def test_an_edited_prompt_stops_the_reads_of_the_conversation(tmp_path: Path) -> None:
    store = Path(imported(tmp_path, str(tmp_path / "e.sqlite")))
    # The prompt is held twice: in its event and in the text the search index keeps.
    edited_in_place(store, b"help with the shop", b"help with the shoe", copies=2)
    with SQLiteEventStore(store, read_only=True) as reader, pytest.raises(StoreReadError) as error:
        list(reader.read_conversation(SessionId(SESSION)))
    assert "changed after it was written" in str(error.value)
    result = correx("report", str(store), SESSION, "-o", str(tmp_path / "r.html"))
    assert result.returncode == 1
    assert "sequence 2" in result.stderr and "Traceback" not in result.stderr


def test_a_postgres_event_edited_behind_its_triggers_is_refused(
    postgres_dsn: str, postgres_schema: str, tmp_path: Path
) -> None:
    name = postgres_schema
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute(f'CREATE DATABASE "{name}"')
    params = psycopg.conninfo.conninfo_to_dict(postgres_dsn)
    url = f"postgresql://{params.get('user', 'postgres')}@{params['host']}:{params['port']}/{name}"
    try:
        imported(tmp_path, url)
        with psycopg.connect(url, autocommit=True) as connection:
            connection.execute("ALTER TABLE correx_events DISABLE TRIGGER USER")
            changed = connection.execute(
                "UPDATE correx_events SET data = replace(data, 'rm -rf /', 'ls -la /') "
                "WHERE data LIKE '%rm -rf /%'"
            ).rowcount
        assert changed == 1
        for command, status in ((["audit", url], 2), (["replay", url, SESSION], 1)):
            result = correx(*command)
            assert result.returncode == status, result.stderr
            assert "changed after it was written" in result.stderr
    finally:
        with psycopg.connect(postgres_dsn, autocommit=True) as admin:
            admin.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')
