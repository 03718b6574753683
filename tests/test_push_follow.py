"""``push --follow``: keeps pushing as agents write, says one line when the server is lost and
one when it is back, and loses nothing meanwhile (issue 56)."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from correx_tools.shell.team.follow import INTERVAL, LONGEST_WAIT, backoff, follow
from correx_tools.shell.team.push import Pushed, PushFailed

from .commands import correx
from .servers import server
from .teams import grow, machine_folder, team_counts

FOLLOW = (sys.executable, "-m", "correx_tools", "push", "--follow")


def steps(outcomes: list[Pushed | PushFailed]) -> Callable[[], Pushed]:
    """A push that answers ``outcomes`` in turn (a `PushFailed` is raised)."""
    left = iter(outcomes)

    def step() -> Pushed:
        outcome = next(left)
        if isinstance(outcome, PushFailed):
            raise outcome
        return outcome

    return step


def test_an_outage_is_one_line_when_lost_and_one_when_back_with_longer_waits_between() -> None:
    said: list[str] = []
    slept: list[float] = []
    lost = PushFailed("team: the server is unavailable")
    outcomes: list[Pushed | PushFailed] = [
        Pushed(sent={"a": 3}), *[lost] * 7, Pushed(sent={"a": 2, "b": 1}), Pushed(), lost,
        Pushed(sent={"b": 4}),
    ]  # fmt: skip
    sent = follow(steps(outcomes), say=said.append, sleep=slept.append, passes=len(outcomes))
    assert sent == 3 + 3 + 4
    assert said == [
        "pushed 3 events of 1 sessions",
        "team: the server is unavailable; retrying, nothing is lost meanwhile",
        "the team's store is back after 7 tries; pushing",
        "pushed 3 events of 2 sessions",
        "team: the server is unavailable; retrying, nothing is lost meanwhile",
        "the team's store is back after 1 tries; pushing",
        "pushed 4 events of 1 sessions",
    ]
    assert slept == [INTERVAL, 1, 2, 4, 8, 16, LONGEST_WAIT, LONGEST_WAIT, INTERVAL, INTERVAL,
                     1, INTERVAL]  # fmt: skip
    assert all(0 < backoff(n) <= LONGEST_WAIT for n in range(1, 200))


def test_a_refusal_is_said_once_however_many_passes_meet_it() -> None:
    said: list[str] = []
    refused = Pushed(refused=[("s", "s.jsonl: changed other than by growing")])
    follow(steps([refused] * 5), say=said.append, sleep=lambda _: None, passes=5)
    assert said == ["s.jsonl: changed other than by growing"]


def waited(check: Callable[[], bool], seconds: float) -> float | None:
    """Seconds until ``check`` holds, or ``None`` if it did not within ``seconds``."""
    start = time.monotonic()
    while time.monotonic() - start < seconds:
        try:
            if check():
                return time.monotonic() - start
        except Exception:  # the server is down, or the tables are not made yet
            pass
        time.sleep(0.1)
    return None


def test_following_pushes_what_agents_write_and_outlives_a_lost_server(
    tmp_path: Path, own_server: tuple[str, str]
) -> None:
    pytest.importorskip("psycopg")
    dsn, directory = own_server
    folder = machine_folder(tmp_path / "laptop", lines=60)
    following = subprocess.Popen(
        [*FOLLOW, str(folder), "--to", dsn, "--machine", "laptop", "--user", "anna"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
    )  # fmt: skip
    try:
        assert waited(lambda: len(team_counts(dsn)) == 2, 60) is not None
        before = sum(team_counts(dsn).values())
        grow(folder)  # the agent goes on writing
        # Within a pass and a wait (about a second); the bound is loose for a busy machine.
        assert waited(lambda: sum(team_counts(dsn).values()) > before, 30) is not None
        grown = sum(team_counts(dsn).values())
        server("crash", directory)
        time.sleep(3 * INTERVAL)  # passes that find the server gone
        (folder / "later.jsonl").write_bytes((folder / next(
            p.name for p in folder.iterdir() if p.name.startswith("session_4d5611e5"))
        ).read_bytes().replace(b"4d5611e5", b"5e6722f6"))  # fmt: skip
        server("restart", directory)
        assert waited(lambda: len(team_counts(dsn)) == 3, 60) is not None
        assert sum(team_counts(dsn).values()) > grown
    finally:
        following.send_signal(signal.SIGINT)
        _, err = following.communicate(timeout=60)
    assert following.returncode == 0, err
    assert "Traceback" not in err
    lines = err.strip().splitlines()
    assert sum("retrying, nothing is lost" in line for line in lines) == 1, err
    assert sum("is back after" in line for line in lines) == 1, err
    # Nothing is left to push: what the follower sent is all the folder holds.
    again = correx("push", str(folder), "--to", dsn, "--machine", "laptop", "--user", "anna",
                   "--json", check=True)  # fmt: skip
    answer = json.loads(again.stdout)
    assert answer["sent"] == {} and answer["unchanged"] == 3
