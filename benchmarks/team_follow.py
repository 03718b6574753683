"""``push --follow`` while an agent writes: how soon what it wrote is in the team's store, and
the follower's memory as it goes on (issue 56: within 5 s, in bounded memory).

A folder of Claude Code transcripts is followed by one ``correx-tools push --follow``
process; then, ``rounds`` times, a batch of new sessions is written into it and the time
until the team's store holds every one of them is taken. The follower's peak resident
memory (``VmHWM``) is read after the first batch and after the last: following that holds
what it pushed grows with every batch; following in bounded memory stays where it was.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from .claude_folder import write_folder
from .stored import postgres_database
from .table import Row

LATEST_SECONDS = 5.0
"""Issue 56: each new event in the team's store within this many seconds."""
FOLLOWER_MB = 200
"""The most memory the follower may take (MB), as a pusher."""
WAIT = 120.0
"""The longest wait for a batch before the run gives up (a follower that stopped)."""


def _peak_mb(pid: int) -> float:
    """The process's peak resident memory so far (MB)."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    raise RuntimeError("no VmHWM in /proc: the follower's memory cannot be read here")


def _sessions_of(url: str, machine: str) -> int:
    """Sessions the team's store holds for ``machine``."""
    import psycopg  # noqa: PLC0415 - the postgres extra

    with psycopg.connect(url) as connection:
        row = connection.execute(
            "SELECT count(*) FROM correx_catalog WHERE machine = %s", (machine.encode(),)
        ).fetchone()
    return int(row[0]) if row else 0


def _held_within(url: str, machine: str, sessions: int, follower: subprocess.Popen[bytes]) -> float:
    """Seconds until the store holds ``sessions`` sessions of ``machine``."""
    started = time.perf_counter()
    while _sessions_of(url, machine) < sessions:
        if follower.poll() is not None:
            raise RuntimeError(f"the follower stopped with status {follower.returncode}")
        if time.perf_counter() - started > WAIT:
            raise RuntimeError(f"the follower pushed no batch within {WAIT:g} s")
        time.sleep(0.05)
    return time.perf_counter() - started


def follow_rows(directory: Path, rounds: int, sessions: int) -> list[Row]:
    """The rows of a follower that sees ``rounds`` batches of ``sessions`` new sessions."""
    folder = directory / "followed" / "projects"
    size = f"{rounds} batches x {sessions:,} sessions"
    env = {**os.environ, "TZ": "UTC", "XDG_CACHE_HOME": str(directory / "follow-cache")}
    command = [sys.executable, "-m", "correx_tools"]
    with postgres_database() as url:
        if url is None:
            return [Row("team push --follow", size, "-", "no server", None, "-", None)]
        subprocess.run([*command, "init-db", url], check=True, capture_output=True, env=env)
        write_folder(folder, sessions, turns=3, seed=1_000)
        log = (directory / "follower.log").open("wb")
        follower = subprocess.Popen(
            [*command, "push", "--follow", str(folder), "--to", url, "--machine", "follower"],
            stdout=subprocess.DEVNULL, stderr=log, env=env,
        )  # fmt: skip
        try:
            _held_within(url, "follower", sessions, follower)  # the first pass: everything
            first_mb = _peak_mb(follower.pid)
            waits = []
            for batch in range(1, rounds):
                write_folder(folder, sessions, turns=3, seed=1_000 + batch)
                waits.append(_held_within(url, "follower", sessions * (batch + 1), follower))
            last_mb = _peak_mb(follower.pid)
        finally:
            follower.send_signal(signal.SIGINT)
            follower.wait(timeout=60)
            log.close()
    slowest = max(waits)
    return [
        Row("team push --follow: the slowest batch written until it is in the team's store",
            size, f"{slowest:.1f} s", "-", None, f"<= {LATEST_SECONDS:g} s",
            slowest <= LATEST_SECONDS),
        Row("team push --follow: peak memory after the last batch, over after the first",
            size, f"{last_mb:.0f} MB", f"{first_mb:.0f} MB", last_mb / first_mb,
            f"<= {FOLLOWER_MB} MB", last_mb <= FOLLOWER_MB),
    ]  # fmt: skip
