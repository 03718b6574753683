"""``verify`` and ``reindex`` with a worker process killed (SIGKILL) mid-run.

What is held: the command ends with one line on standard error and a
non-zero status, prints no report, and leaves the store exactly as it was —
a verify writes nothing, a reindex's transaction is never committed, so the
index read back is the old one, which still equals the fold of the events.
Real processes: the command, its worker processes, a real SQLite file.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import signal
import sqlite3
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .commands import correx
from .test_verify_parts import index_of, long_session


@pytest.fixture(scope="module")
def long_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return long_session(tmp_path_factory.mktemp("kills") / "long.sqlite")


def workers_of(pid: int) -> list[int]:
    """The worker processes ``pid`` started (not its resource tracker)."""
    found = []
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            stat = (entry / "stat").read_text()
            command = (entry / "cmdline").read_bytes()
        except OSError:
            continue
        parent = int(stat.rsplit(")", 1)[1].split()[1])
        if parent == pid and b"spawn_main" in command:
            found.append(int(entry.name))
    return found


def killed_worker(*args: str) -> subprocess.CompletedProcess[str]:
    """The command run with two workers, each worker process killed as soon as it starts
    (so that the one with a part in hand is killed whichever it is)."""
    command = [sys.executable, "-m", "correx_tools", *args, "--workers", "2"]
    killed: set[int] = set()
    # ``with``: the pipes are closed whatever happens here, not left to the collector.
    with subprocess.Popen(
        command, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    ) as process:
        deadline = time.monotonic() + 60
        while process.poll() is None and time.monotonic() < deadline:
            for worker in set(workers_of(process.pid)) - killed:
                try:
                    os.kill(worker, signal.SIGKILL)
                except ProcessLookupError:  # it ended between being listed and being killed
                    continue
                killed.add(worker)
            time.sleep(0.005)
        stdout, stderr = process.communicate(timeout=120)
    assert killed, "no worker process was seen"
    return subprocess.CompletedProcess(command, process.returncode, stdout, stderr)


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def said_in_one_line(result: subprocess.CompletedProcess[str]) -> None:
    assert result.returncode != 0
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert "worker process" in lines[0] and "Traceback" not in result.stderr


def test_a_killed_worker_ends_verify_in_one_line(long_store: Path, tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    shutil.copy(long_store, path)
    before = digest(path)
    said_in_one_line(killed_worker("verify", str(path)))
    assert digest(path) == before


@pytest.mark.slow  # rebuilds a 51,000-event index in worker processes
def test_a_killed_worker_leaves_the_old_index_whole(long_store: Path, tmp_path: Path) -> None:
    intact = tmp_path / "intact.sqlite"
    shutil.copy(long_store, intact)
    before = index_of(intact)
    said_in_one_line(killed_worker("reindex", str(intact)))
    assert index_of(intact) == before
    assert "intact" in correx("verify", str(intact), "--workers", "1").stdout  # equals the fold

    # An index a whole run would change (rows of the later parts gone) is left as it was,
    # not half rebuilt: nothing is written before every part is in.
    damaged = tmp_path / "damaged.sqlite"
    shutil.copy(long_store, damaged)
    connection = sqlite3.connect(damaged)
    with connection:
        connection.execute("DELETE FROM invocations WHERE sequence >= 30006")
    connection.close()
    before = index_of(damaged)
    said_in_one_line(killed_worker("reindex", str(damaged)))
    assert index_of(damaged) == before
    assert correx("verify", str(damaged), "--workers", "1").returncode == 1
    assert correx("reindex", str(damaged), "--workers", "2").returncode == 0
    assert index_of(damaged) == index_of(intact)


def test_a_killed_worker_ends_audit_in_one_line(long_store: Path, tmp_path: Path) -> None:
    path = tmp_path / "store.sqlite"
    shutil.copy(long_store, path)
    before = digest(path)
    result = killed_worker("audit", str(path))
    said_in_one_line(result)
    assert result.returncode == 2  # could not run: no half a list of findings
    assert digest(path) == before
