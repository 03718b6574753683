"""``serve postgresql://…`` as the team's page: each session's machine and user, the list
filtered by them, and usage by person as ``usage --json`` gives it (issue 56)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from .commands import correx
from .serving import Served
from .teams import TWO_MACHINES, two_machines_pushed

pytest.importorskip("psycopg")


@pytest.fixture(scope="module")
def served(postgres_dsn: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with two_machines_pushed(postgres_dsn, tmp_path_factory.mktemp("machines")) as url:
        server = Served(url)
        try:
            yield server
        finally:
            server.stop()


def test_the_list_shows_and_filters_by_machine_and_user(served: Served) -> None:
    every = served.answer("/api/v1/sessions")["sessions"]
    assert {(r["session_id"].split("/")[0], r["machine"], r["user"]) for r in every} == {
        (machine, machine, user) for machine, user in TWO_MACHINES
    }
    for machine, user in TWO_MACHINES:
        for picked in (served.answer("/api/v1/sessions", machine=machine),
                       served.answer("/api/v1/sessions", user=user, sort="-events")):  # fmt: skip
            rows = picked["sessions"]
            assert picked["total"] == len(rows) == 2
            assert {(r["machine"], r["user"]) for r in rows} == {(machine, user)}
    assert served.answer("/api/v1/sessions", machine="laptop", user="bob")["total"] == 0


def test_usage_by_person_is_the_commands(served: Served) -> None:
    source = served.document["source"]
    for by in ("user", "machine", "day"):
        page = served.answer("/api/v1/usage", by=by)
        command = json.loads(correx("usage", source, "--by", by, "--tz", "UTC", "--json",
                                    check=True).stdout)  # fmt: skip
        assert page["rows"] == command["rows"] and page["total"] == command["total"]
    anna = served.answer("/api/v1/usage", by="user", user="anna")
    assert [row["key"] for row in anna["rows"]] == ["anna"]
    status, body, _ = served.get("/api/v1/usage", {"by": "planet"})
    assert status == 400 and "by='planet'" in body["error"]
