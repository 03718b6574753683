"""Pushes that are killed, that lose their server, or race each other: every session ends
complete and none doubled, counted from the events themselves (issue 56)."""

from __future__ import annotations

import os
import random
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from .commands import correx
from .servers import server
from .teams import machine_store, team_counts, team_database

psycopg = pytest.importorskip("psycopg")

PUSH = (sys.executable, "-m", "correx_tools", "push")


@pytest.fixture
def team(postgres_dsn: str) -> Iterator[str]:
    with team_database(postgres_dsn) as url:
        yield url


def pushing(store: Path, team: str, machine: str) -> subprocess.Popen[str]:
    return subprocess.Popen(
        [*PUSH, str(store), "--to", team, "--machine", machine, "--user", "u"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip


def test_a_push_whose_server_stops_says_so_and_the_next_completes(
    tmp_path: Path, own_server: tuple[str, str]
) -> None:
    dsn, directory = own_server
    store = tmp_path / "machine.sqlite"
    expected = machine_store(store, sessions=40, calls=100)
    running = pushing(store, dsn, "m")
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline and running.poll() is None:
        try:
            if team_counts(dsn):  # some sessions are in: stop the server mid-push
                break
        except psycopg.Error:  # the tables are not made yet
            pass
        time.sleep(0.05)
    server("crash", directory)
    _, err = running.communicate(timeout=120)
    assert running.returncode != 0, "the push finished before the server stopped"
    lines = err.strip().splitlines()
    assert len(lines) == 1 and "unavailable" in lines[0] and "Traceback" not in err, err
    server("restart", directory)
    held = team_counts(dsn)
    assert held and all(held[("m", s)] == expected[s] for (_, s) in held)  # whole or none
    again = pushing(store, dsn, "m")
    _, err = again.communicate(timeout=300)
    assert again.returncode == 0, err
    assert team_counts(dsn) == {("m", s): n for s, n in expected.items()}


@pytest.mark.slow
def test_fifty_killed_pushers_then_one_push_each_leave_every_session_whole(
    tmp_path: Path, team: str
) -> None:
    machines = {
        f"m{number}": machine_store(tmp_path / f"m{number}.sqlite", sessions=12, calls=80)
        for number in range(10)
    }
    correx("init-db", team, check=True)
    chance = random.Random(56)
    pushers = [(machine, pushing(tmp_path / f"{machine}.sqlite", team, machine))
               for machine in machines for _ in range(5)]  # fmt: skip
    started = time.monotonic()
    # Each killed at a moment of its own, from its start-up to well into its push.
    moments = sorted((chance.uniform(0.5, 12.0), index) for index in range(len(pushers)))
    for moment, index in moments:
        time.sleep(max(0.0, started + moment - time.monotonic()))
        if pushers[index][1].poll() is None:
            os.kill(pushers[index][1].pid, signal.SIGKILL)
    for _, process in pushers:
        process.communicate(timeout=120)
    # How many a moment catches depends on how fast the machine pushes: enough to matter.
    killed = sum(process.returncode == -signal.SIGKILL for _, process in pushers)
    assert killed >= 15, f"only {killed} of the pushers were killed mid-push"
    held = team_counts(team)  # numbered without a gap or a double (team_counts checks)
    assert held, "every pusher was killed before it sent anything"
    assert all(held[key] == machines[key[0]][key[1]] for key in held)  # whole runs only
    # Then one push each, five of a machine at once: every session whole, none doubled.
    again = [(m, pushing(tmp_path / f"{m}.sqlite", team, m)) for m, _ in pushers]
    for _, process in again:
        _, err = process.communicate(timeout=600)
        assert process.returncode == 0, err
    assert team_counts(team) == {
        (machine, session): count
        for machine, sessions in machines.items()
        for session, count in sessions.items()
    }
