"""What the team's store tests share: a database of a test's own on the tests' server, a
folder of transcripts standing for a machine's, and the events a store holds of each
machine."""

from __future__ import annotations

import shutil
import uuid
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from .commands import correx
from .transcript_samples import DATA as TRANSCRIPTS

SUBAGENT = TRANSCRIPTS / "claude-code" / "session_4d5611e5_subagent_a2898e3.jsonl"
SHORT = TRANSCRIPTS / "claude-code" / "short_two_rejections.jsonl"


@contextmanager
def team_database(server: str) -> Iterator[str]:
    """A new database on ``server`` for one test, as a URL; dropped afterwards."""
    import psycopg  # noqa: PLC0415 - only PostgreSQL tests need it
    from psycopg.conninfo import conninfo_to_dict  # noqa: PLC0415

    name = f"team_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(server, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{name}"')
    params = conninfo_to_dict(server)
    user = params.get("user", "postgres")
    try:
        yield f"postgresql://{user}@{params['host']}:{params['port']}/{name}"
    finally:
        with psycopg.connect(server, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE IF EXISTS "{name}" WITH (FORCE)')


TWO_MACHINES = (("laptop", "anna"), ("desk", "bob"))
"""The machines of `two_machines_pushed`, each with the user who pushes from it."""


@contextmanager
def two_machines_pushed(server: str, folder: Path) -> Iterator[str]:
    """A team's store of its own on ``server`` (a URL), into which each of `TWO_MACHINES`
    has pushed its `machine_folder` (made under ``folder``)."""
    with team_database(server) as url:
        for machine, user in TWO_MACHINES:
            correx("push", str(machine_folder(folder / machine)), "--to", url, "--machine",
                   machine, "--user", user, check=True)  # fmt: skip
        yield url


def machine_folder(folder: Path, *, lines: int | None = None) -> Path:
    """A folder of two Claude Code transcripts, standing for a machine's; ``lines``: only so
    many lines of the longer one (the rest written later, as an agent goes on)."""
    folder.mkdir(parents=True, exist_ok=True)
    shutil.copy(SHORT, folder / SHORT.name)
    kept = SUBAGENT.read_bytes().splitlines(keepends=True)
    (folder / SUBAGENT.name).write_bytes(b"".join(kept[:lines]))
    return folder


def grow(folder: Path) -> None:
    """The longer transcript written to its end."""
    shutil.copy(SUBAGENT, folder / SUBAGENT.name)


def team_counts(url: str) -> dict[tuple[str, str], int]:
    """Events the team's store holds, by machine and the session's own id (from the events
    themselves, not from what a push recorded)."""
    import psycopg  # noqa: PLC0415

    with psycopg.connect(url) as connection:
        rows = connection.execute(
            "SELECT s.session_id, count(e.sequence), max(e.sequence) FROM correx_sessions s "
            "JOIN correx_events e ON e.session_key = s.session_key GROUP BY s.session_id"
        ).fetchall()
    counts: dict[tuple[str, str], int] = {}
    for name, count, last in rows:
        machine, _, own = bytes(name).decode().partition("/")
        assert count == last, f"{machine}/{own}: {count} events numbered up to {last}"
        counts[(machine, own)] = int(count)
    return counts


def machine_store(path: Path, *, sessions: int, calls: int) -> dict[str, int]:
    """A SQLite store standing for a machine's: ``sessions`` sessions of ``calls`` calls each
    (three events a call); the events of each session, by id."""
    from correx_tools import SessionId, SQLiteEventStore  # noqa: PLC0415

    from .strategies import completed, requested, started  # noqa: PLC0415

    store = SQLiteEventStore(path)
    try:
        for number in range(sessions):
            session = SessionId(f"run-{number:04d}")
            events: list[object] = []
            for call in range(calls):
                invocation = f"{session}/call-{call}"
                events += [requested(invocation, path=f"f{call}"), started(invocation),
                           completed(invocation, output="x" * (call % 7))]  # fmt: skip
            store.append(session, events, expected_sequence=0).unwrap()
    finally:
        store.close()
    return {f"run-{number:04d}": 3 * calls for number in range(sessions)}
