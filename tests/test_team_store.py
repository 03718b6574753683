"""The team's store's schema: the events partitioned by a hash of their session, read from
one partition a session (``EXPLAIN`` shows the pruning), an older store's events moved over
in place by ``init-db`` (issue 56)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path

import pytest

from correx_tools.shell.stores.postgres.layout import id_key
from correx_tools.shell.stores.postgres.team import PARTITIONS

from .commands import correx
from .teams import machine_folder, team_counts, team_database

psycopg = pytest.importorskip("psycopg")


@pytest.fixture
def team(postgres_dsn: str) -> Iterator[str]:
    with team_database(postgres_dsn) as url:
        yield url


def partitions_read(url: str, query: str, parameters: tuple[object, ...]) -> list[str]:
    """The partitions of the events the plan of ``query`` reads."""
    with psycopg.connect(url) as connection:
        plan = connection.execute(f"EXPLAIN (FORMAT JSON) {query}", parameters).fetchone()[0]
    found: list[str] = []

    def walk(node: dict[str, object]) -> None:
        name = node.get("Relation Name")
        if isinstance(name, str) and name.startswith("correx_events_p"):
            found.append(name)
        for child in node.get("Plans", []):  # type: ignore[attr-defined]
            walk(child)

    walk(plan[0]["Plan"])
    return found


def test_a_sessions_events_are_read_from_one_partition(tmp_path: Path, team: str) -> None:
    correx("push", str(machine_folder(tmp_path / "m")), "--to", team, "--machine", "m",
           check=True)  # fmt: skip
    session = "m/55604662-cf2a-4331-851a-ec234028f8ca"
    query = "SELECT data FROM correx_events WHERE session_key = %s AND sequence > %s"
    assert len(partitions_read(team, query, (id_key(session), 0))) == 1
    # Without the session, every partition is read: the pruning is the key's doing.
    assert len(partitions_read(team, "SELECT data FROM correx_events WHERE sequence > %s",
                               (0,))) == PARTITIONS  # fmt: skip


def test_init_db_partitions_an_older_stores_events_in_place(tmp_path: Path, team: str) -> None:
    # A store as earlier releases made it: its events in one table.
    correx("push", str(machine_folder(tmp_path / "m")), "--to", team, "--machine", "m",
           check=True)  # fmt: skip
    with psycopg.connect(team, autocommit=True) as connection:
        for statement in (
            "CREATE TABLE plain (LIKE correx_events INCLUDING CONSTRAINTS)",
            "INSERT INTO plain SELECT * FROM correx_events",
            "ALTER TABLE plain ALTER COLUMN position ADD GENERATED ALWAYS AS IDENTITY",
            "ALTER TABLE plain ADD PRIMARY KEY (position), ADD UNIQUE (session_key, sequence)",
            "DROP TABLE correx_events",
            "ALTER TABLE plain RENAME TO correx_events",
        ):
            connection.execute(statement)
    held = team_counts(team)
    before = json.loads(correx("sessions", team, "--json", check=True).stdout)
    ran = correx("init-db", team, "--json", check=True)
    assert json.loads(ran.stdout)["moved"] == sum(held.values())
    assert team_counts(team) == held
    assert json.loads(correx("sessions", team, "--json", check=True).stdout) == before
    verified = correx("verify", team)
    assert verified.returncode == 0, verified.stdout + verified.stderr
    # Once partitioned, again is nothing to do; the store is written on as before.
    assert json.loads(correx("init-db", team, "--json", check=True).stdout)["moved"] is None
    grown = machine_folder(tmp_path / "n")
    correx("push", str(grown), "--to", team, "--machine", "n", check=True)
    assert len(team_counts(team)) == 4
