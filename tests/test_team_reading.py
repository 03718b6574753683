"""Every reading command over the team's store: each machine's sessions, filtered by
machine and by user, totalled by either, searched, compared across machines (issue 56)."""

from __future__ import annotations

import json
from collections.abc import Iterator

import pytest

from .commands import correx
from .teams import two_machines_pushed

pytest.importorskip("psycopg")

SHORT_ID = "55604662-cf2a-4331-851a-ec234028f8ca"


@pytest.fixture(scope="module")
def team(postgres_dsn: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """Two machines' sessions, pushed by anna and bob."""
    with two_machines_pushed(postgres_dsn, tmp_path_factory.mktemp("machines")) as url:
        yield url


def listed(team: str, *filters: str) -> set[tuple[str, str, str]]:
    ran = correx("sessions", team, "--json", *filters)
    return {(s["session_id"], s["machine"], s["user"]) for s in json.loads(ran.stdout)["sessions"]}


def test_sessions_of_every_machine_filtered_by_machine_or_user(team: str) -> None:
    every = listed(team)
    assert len(every) == 4 and {m for _, m, _ in every} == {"laptop", "desk"}
    assert listed(team, "--user", "anna") == {s for s in every if s[2] == "anna"}
    assert listed(team, "--machine", "desk") == {s for s in every if s[1] == "desk"}
    assert listed(team, "--machine", "desk", "--user", "anna") == set()
    nothing = correx("sessions", team, "--user", "carol")
    assert nothing.returncode == 1 and "users here: anna, bob" in nothing.stderr
    shown = correx("sessions", team, "--wide", check=True).stdout
    assert "laptop" in shown and "anna" in shown


def test_usage_by_machine_and_by_user_add_up_to_the_whole(team: str) -> None:
    rows = {}
    for by in ("machine", "user"):
        answer = json.loads(correx("usage", team, "--by", by, "--json", check=True).stdout)
        rows[by] = {row["key"]: row["sessions"] for row in answer["rows"]}
        assert answer["total"]["sessions"] == 4
    assert rows == {"machine": {"laptop": 2, "desk": 2}, "user": {"anna": 2, "bob": 2}}
    alone = json.loads(correx("usage", team, "--user", "bob", "--json", check=True).stdout)
    assert alone["total"]["sessions"] == 2


def test_search_stats_audit_and_compare_take_the_team_store(team: str) -> None:
    found = json.loads(
        correx("search", team, "phx.server", "--machine", "desk", "--json", check=True).stdout
    )
    assert found["hits"] and all(h["session_id"].startswith("desk/") for h in found["hits"])
    stats = correx("stats", team, f"laptop/{SHORT_ID}", "--json", check=True)
    assert json.loads(stats.stdout)["session_id"] == f"laptop/{SHORT_ID}"
    audited = correx("audit", team, "--json")
    assert json.loads(audited.stdout)["sessions"] == 4
    compared = correx("compare", team, f"laptop/{SHORT_ID}", f"desk/{SHORT_ID}", check=True)
    assert "no divergence" in compared.stdout
