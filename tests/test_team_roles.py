"""The team's store's roles: a pushing role that adds events and never changes or deletes
one, a reading role for ``serve`` and the reading commands; and the DSN's password, which
nothing prints (issue 56)."""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from .commands import correx
from .teams import machine_folder, team_counts, team_database

psycopg = pytest.importorskip("psycopg")


@pytest.fixture
def team(postgres_dsn: str) -> Iterator[str]:
    with team_database(postgres_dsn) as url:
        yield url


@pytest.fixture
def roles(postgres_dsn: str, team: str) -> Iterator[dict[str, str]]:
    """A pushing and a reading role (logging in without a password: the tests' server trusts
    loopback), with URLs that connect as each; dropped afterwards."""
    suffix = uuid.uuid4().hex[:8]
    names = {"pusher": f"pusher_{suffix}", "reader": f"reader_{suffix}"}
    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        for role in names.values():
            admin.execute(f'CREATE ROLE "{role}" LOGIN')
    try:
        yield {kind: team.replace("postgres@", f"{role}@") for kind, role in names.items()} | {
            f"{kind}_role": role for kind, role in names.items()
        }
    finally:
        with psycopg.connect(team, autocommit=True) as connection:
            for role in names.values():
                connection.execute(f'DROP OWNED BY "{role}"')
        with psycopg.connect(postgres_dsn, autocommit=True) as admin:
            for role in names.values():
                admin.execute(f'DROP ROLE IF EXISTS "{role}"')


def test_a_pushing_role_adds_events_and_may_not_change_or_delete_them(
    tmp_path: Path, team: str, roles: dict[str, str]
) -> None:
    ready = correx("init-db", team, "--pusher", roles["pusher_role"], "--reader",
                   roles["reader_role"])  # fmt: skip
    assert ready.returncode == 0, ready.stderr
    folder = machine_folder(tmp_path / "m", lines=50)
    pushed = correx("push", str(folder), "--to", roles["pusher"], "--machine", "m")
    assert pushed.returncode == 0, pushed.stderr
    machine_folder(tmp_path / "m")  # grown: pushed on, as the same role
    assert correx("push", str(folder), "--to", roles["pusher"], "--machine", "m").returncode == 0
    held = team_counts(team)
    with psycopg.connect(roles["pusher"], autocommit=True) as pusher:
        for statement in ("DELETE FROM correx_events", "UPDATE correx_events SET data = '{}'",
                          "TRUNCATE correx_events", "UPDATE correx_sessions SET session_id = "
                          "'x'::bytea"):  # fmt: skip
            with pytest.raises(psycopg.errors.InsufficientPrivilege):
                pusher.execute(statement)
    assert team_counts(team) == held
    # Sending a session anew deletes it first: the pushing role is told what it lacks.
    replacing = correx("push", str(folder), "--to", roles["pusher"], "--machine", "m",
                       "--replace")  # fmt: skip
    assert replacing.returncode == 1 and len(replacing.stderr.splitlines()) == 1
    assert "lacks DELETE on correx_events" in replacing.stderr


def test_a_reading_role_reads_and_may_not_push(
    tmp_path: Path, team: str, roles: dict[str, str]
) -> None:
    folder = machine_folder(tmp_path / "m")
    correx("init-db", team, "--reader", roles["reader_role"], check=True)
    correx("push", str(folder), "--to", team, "--machine", "m", check=True)
    held = team_counts(team)
    refused = correx("push", str(folder), "--to", roles["reader"], "--machine", "other")
    assert refused.returncode == 1
    assert len(refused.stderr.splitlines()) == 1, refused.stderr
    assert "may not push" in refused.stderr and "lacks INSERT on correx_events" in refused.stderr
    assert team_counts(team) == held
    listed = json.loads(correx("sessions", roles["reader"], "--json", check=True).stdout)
    assert listed["total"] == 2
    usage = correx("usage", roles["reader"], "--by", "machine", "--json", check=True)
    assert [row["key"] for row in json.loads(usage.stdout)["rows"]] == ["m"]


def test_init_db_names_a_role_that_does_not_exist_in_one_line(team: str) -> None:
    ran = correx("init-db", team, "--reader", "no_such_role_here")
    assert ran.returncode == 1 and len(ran.stderr.splitlines()) == 1
    assert "no_such_role_here" in ran.stderr and "nothing was changed" in ran.stderr


def test_the_password_is_never_printed(tmp_path: Path, team: str) -> None:
    secret = team.replace("postgres@", "postgres:hunter2@")
    folder = machine_folder(tmp_path / "m")
    for args in (
        ("push", str(folder), "--to", secret, "--machine", "m"),
        ("push", str(folder), "--to", secret, "--machine", "m", "--json"),
        ("init-db", secret, "--json"),
        ("sessions", secret, "--json"),
        ("push", str(folder), "--to", secret.rsplit("/", 1)[0] + "/no_such_db"),
        ("push", str(folder), "--to", secret.replace(":5", ":1"), "--json"),
        ("init-db", secret, "--reader", "no_such_role_here"),
    ):
        ran = correx(*args)
        assert "hunter2" not in ran.stdout + ran.stderr, args
    assert "***" in correx("push", str(folder), "--to", secret, "--json").stdout
