"""``correx-tools push``: a machine's sessions sent to the team's PostgreSQL store, only what
it does not hold yet, named by machine and labelled by user (issue 56)."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from .commands import correx
from .teams import SHORT, SUBAGENT, grow, machine_folder, team_counts, team_database

pytest.importorskip("psycopg")

PUSH = (sys.executable, "-m", "correx_tools", "push")
SHORT_ID = "55604662-cf2a-4331-851a-ec234028f8ca"
SUBAGENT_ID = "4d5611e5-241a-462a-8d15-5122611a9569/agent-a2898e3"


@pytest.fixture
def team(postgres_dsn: str) -> Iterator[str]:
    with team_database(postgres_dsn) as url:
        yield url


def push(folder: Path, team: str, *more: str) -> dict[str, object]:
    ran = correx("push", str(folder), "--to", team, "--json", *more)
    assert ran.returncode == 0, ran.stderr
    answer: dict[str, object] = json.loads(ran.stdout)
    return answer


def test_a_push_sends_only_what_the_store_does_not_hold(tmp_path: Path, team: str) -> None:
    folder = machine_folder(tmp_path / "laptop", lines=60)
    first = push(folder, team, "--machine", "laptop", "--user", "anna")
    assert first["unchanged"] == 0 and set(first["sent"]) == {SHORT_ID, SUBAGENT_ID}  # type: ignore[arg-type]
    held = team_counts(team)
    # Again, nothing changed: nothing sent, every session found unchanged.
    again = push(folder, team, "--machine", "laptop", "--user", "anna")
    assert again["sent"] == {} and again["unchanged"] == 2
    # The agent wrote on: only the new events go.
    grow(folder)
    grown = push(folder, team, "--machine", "laptop", "--user", "anna")
    after = team_counts(team)
    assert grown["sent"] == {SUBAGENT_ID: after[("laptop", SUBAGENT_ID)]
                             - held[("laptop", SUBAGENT_ID)]}  # fmt: skip
    assert after[("laptop", SHORT_ID)] == held[("laptop", SHORT_ID)]
    # What the store holds is what importing the whole transcripts gives.
    local = json.loads(correx("sessions", str(folder), "--json").stdout)
    assert {s["session_id"]: s["events"] for s in local["sessions"]} == {
        own: count for (machine, own), count in after.items()
    }
    listed = json.loads(correx("sessions", team, "--json").stdout)["sessions"]
    assert {(s["session_id"], s["machine"], s["user"]) for s in listed} == {
        (f"laptop/{SHORT_ID}", "laptop", "anna"),
        (f"laptop/{SUBAGENT_ID}", "laptop", "anna"),
    }


def test_a_transcript_changed_other_than_by_growing_is_refused_in_one_line(
    tmp_path: Path, team: str
) -> None:
    folder = machine_folder(tmp_path / "desk")
    push(folder, team, "--machine", "desk")
    before = team_counts(team)
    rewritten = SUBAGENT.read_bytes().replace(b"Very thorough", b"Very careful", 1)
    (folder / SUBAGENT.name).write_bytes(rewritten)  # the first prompt changed in place
    refused = correx("push", str(folder), "--to", team, "--machine", "desk")
    assert refused.returncode == 1
    said = [line for line in refused.stderr.splitlines() if "changed" in line]
    assert len(said) == 1 and str(folder / SUBAGENT.name) in said[0]
    assert "--replace" in said[0] and "Traceback" not in refused.stderr
    assert team_counts(team) == before
    # --replace sends it anew, whole; the other session is left as it was.
    replaced = push(folder, team, "--machine", "desk", "--replace")
    assert replaced["sent"] == {SUBAGENT_ID: team_counts(team)[("desk", SUBAGENT_ID)]}
    assert team_counts(team)[("desk", SHORT_ID)] == before[("desk", SHORT_ID)]
    assert push(folder, team, "--machine", "desk")["unchanged"] == 2


def test_the_same_session_from_two_machines_is_two_sessions(tmp_path: Path, team: str) -> None:
    folders = [machine_folder(tmp_path / name) for name in ("one", "two")]
    # Both at once, each a process of its own standing for a machine.
    pushes = [
        subprocess.Popen(
            [
                sys.executable,
                "-m",
                "correx_tools",
                "push",
                str(folder),
                "--to",
                team,
                "--machine",
                folder.name,
                "--user",
                f"user-{folder.name}",
            ],
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for folder in folders
    ]
    for pushed in pushes:
        _, err = pushed.communicate(timeout=300)
        assert pushed.returncode == 0, err
    counts = team_counts(team)
    assert set(counts) == {(m, s) for m in ("one", "two") for s in (SHORT_ID, SUBAGENT_ID)}
    assert counts[("one", SUBAGENT_ID)] == counts[("two", SUBAGENT_ID)]
    listed = json.loads(correx("sessions", team, "--json", "--machine", "two").stdout)
    assert {(s["machine"], s["user"]) for s in listed["sessions"]} == {("two", "user-two")}


def test_names_that_cannot_name_a_machine_are_refused(tmp_path: Path, team: str) -> None:
    folder = machine_folder(tmp_path / "m")
    for bad in ("a/b", "has space", ""):
        ran = correx("push", str(folder), "--to", team, "--machine", bad)
        assert ran.returncode == 1 and len(ran.stderr.splitlines()) == 1, ran.stderr
        assert "--machine" in ran.stderr
    assert "--user" in correx("push", str(folder), "--to", team, "--user", "x\ty").stderr


def test_push_sends_to_a_postgresql_store_only(tmp_path: Path) -> None:
    folder = machine_folder(tmp_path / "m")
    ran = correx("push", str(folder), "--to", str(tmp_path / "team.sqlite"))
    assert ran.returncode == 1 and "PostgreSQL" in ran.stderr and SHORT.name not in ran.stderr
