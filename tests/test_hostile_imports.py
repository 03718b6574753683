"""Imports that race, and imports that run out of disk: all or nothing, and never the loss
of what another process wrote.

A full disk is a real one for the command: its file-size limit (``RLIMIT_FSIZE``)
is set low, so its writes fail part way with ``EFBIG`` as on a disk that fills.
"""

from __future__ import annotations

import hashlib
import resource
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from correx_tools import JsonlEventLog, SQLiteEventStore

from .serving import demo_store
from .test_cli import run, run_json


@pytest.fixture(scope="module")
def source(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_store(tmp_path_factory.mktemp("hostile"), 2, 300)


def command(*args: str) -> list[str]:
    return [sys.executable, "-m", "correx_tools", *args]


def test_two_imports_racing_into_one_new_file_lose_nothing(source: Path, tmp_path: Path) -> None:
    dest = tmp_path / "dest.sqlite"
    racers = [
        subprocess.Popen(command("import", str(source), str(dest)), stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
        for _ in range(2)
    ]  # fmt: skip
    outcomes = [(racer.wait(timeout=120), *racer.communicate()) for racer in racers]
    assert [code for code, _, _ in outcomes].count(0) >= 1, outcomes
    for code, _, stderr in outcomes:
        assert "Traceback" not in stderr
        if code:
            assert len(stderr.strip().splitlines()) == 1 and "nothing was imported" in stderr
    assert run_json("verify", str(dest))["intact"] is True
    copied = SQLiteEventStore(dest, read_only=True)
    original = SQLiteEventStore(source, read_only=True)
    assert copied.sessions() == original.sessions()
    assert sum(map(copied.last_sequence, copied.sessions())) == sum(
        map(original.last_sequence, original.sessions())
    )
    assert sorted(path.name for path in tmp_path.iterdir()) == ["dest.sqlite"]


def limited(size: int) -> None:
    """In the child: its files may not grow past ``size`` bytes (a disk that fills)."""
    resource.setrlimit(resource.RLIMIT_FSIZE, (size, size))


@pytest.mark.parametrize("suffix", [".sqlite", ".jsonl"])
def test_a_full_disk_during_an_import_into_a_new_file_says_so_and_leaves_nothing(
    source: Path, tmp_path: Path, suffix: str
) -> None:
    dest = tmp_path / f"dest{suffix}"
    result = subprocess.run(
        command("import", str(source), str(dest)), capture_output=True, text=True,
        timeout=120, check=False, preexec_fn=lambda: limited(200_000),
    )  # fmt: skip
    assert result.returncode == 1, result.stderr
    assert "Traceback" not in result.stderr
    assert len(result.stderr.strip().splitlines()) == 1, result.stderr
    assert f"{dest}: the disk is full" in result.stderr
    assert list(tmp_path.iterdir()) == []


def test_a_full_disk_during_an_import_into_a_log_leaves_the_log_as_it_was(
    source: Path, tmp_path: Path
) -> None:
    log = tmp_path / "log.jsonl"
    other = tmp_path / "other.jsonl"
    run("import", str(source), str(other))
    first = SQLiteEventStore(source, read_only=True).sessions()[0]
    # The log holds one session already; the import of the rest runs out of disk.
    JsonlEventLog(log).import_events(JsonlEventLog(other).read(first)).unwrap()
    before = hashlib.sha256(log.read_bytes()).hexdigest()
    rest = tmp_path / "rest.jsonl"
    shutil.copy(other, rest)
    kept = [
        line for line in rest.read_bytes().splitlines(keepends=True) if first.encode() not in line
    ]
    rest.write_bytes(b"".join(kept))
    result = subprocess.run(
        command("import", str(rest), str(log)), capture_output=True, text=True,
        timeout=120, check=False, preexec_fn=lambda: limited(log.stat().st_size + 50_000),
    )  # fmt: skip
    assert result.returncode == 1 and "the disk is full" in result.stderr, result.stderr
    assert hashlib.sha256(log.read_bytes()).hexdigest() == before
    # Room again: the same import now goes through, whole.
    run("import", str(rest), str(log))
    assert run_json("verify", str(log))["intact"] is True
    assert sorted(JsonlEventLog(log).sessions()) == sorted(JsonlEventLog(other).sessions())
