"""Where ``report -o`` and ``export -o`` write: a file whole, and nothing else replaced.

A regular file is written beside and renamed over (whole or not at all); a
link is followed and kept; a device or a pipe is written to as it is, never
replaced by a file; a file this user may not write, a folder, or no name at all
is refused in one line.
"""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from correx_tools import SQLiteEventStore

from .commands import Ran, correx
from .privileges import as_nobody, open_folder
from .strategies import completed, requested, started, stored

SESSION = "s"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("targets") / "s.sqlite"
    with SQLiteEventStore(path) as written:
        written.import_events(
            stored([requested("a"), started("a"), completed("a")], session=SESSION)
        ).unwrap()
    path.chmod(0o644)
    path.parent.chmod(0o755)
    return path


def write(
    store: Path, command: str, target: str, *user: str
) -> Ran | subprocess.CompletedProcess[str]:
    """``command`` writing to ``target``: as another ``user`` in a process of its own, or in
    this one."""
    if not user:
        return correx(command, str(store), SESSION, "-o", target)
    return subprocess.run(
        [*user, sys.executable, "-m", "correx_tools", command, str(store), SESSION, "-o", target],
        capture_output=True, text=True, timeout=120, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("command", ["report", "export"])
def test_devices_links_and_read_only_files_are_never_replaced(
    store: Path, tmp_path: Path, command: str
) -> None:
    # As an unprivileged user: should the rule ever break, renaming over a device fails
    # for want of permission instead of replacing the machine's /dev/null.
    folder = open_folder()
    try:
        readable = folder / "s.sqlite"
        readable.write_bytes(store.read_bytes())
        readable.chmod(0o644)
        full = write(readable, command, "/dev/full", *as_nobody())
        assert full.returncode == 1 and full.stderr.strip().endswith("No space left on device")
        assert write(readable, command, "/dev/null", *as_nobody()).returncode == 0
    finally:
        readable.unlink()
        folder.rmdir()
    for device in ("/dev/null", "/dev/full"):
        assert stat.S_ISCHR(os.stat(device).st_mode), device  # still the device
    real = tmp_path / f"real-{command}.txt"
    real.write_text("old")
    real.chmod(0o640)
    link = tmp_path / f"link-{command}"
    link.symlink_to(real.name)
    assert write(store, command, str(link)).returncode == 0
    assert link.is_symlink() and real.read_text() != "old"  # the link's file, written whole
    assert stat.S_IMODE(real.stat().st_mode) == 0o640  # with the bits it had
    for nothing in (".", str(tmp_path) + "/"):
        refused = write(store, command, nothing)
        assert refused.returncode == 1 and len(refused.stderr.splitlines()) == 1
        assert "folder" in refused.stderr


def test_a_file_this_user_may_not_write_is_refused(store: Path) -> None:
    folder = open_folder()
    try:
        readable = folder / "s.sqlite"
        readable.write_bytes(store.read_bytes())
        readable.chmod(0o644)
        kept = folder / "kept.html"
        kept.write_text("mine")
        kept.chmod(0o444)
        refused = write(readable, "report", str(kept), *as_nobody())
        assert refused.returncode == 1, refused.stderr
        assert "cannot be written by this user" in refused.stderr
        assert kept.read_text() == "mine"
        assert sorted(p.name for p in folder.iterdir()) == ["kept.html", "s.sqlite"]
    finally:
        for path in folder.iterdir():
            path.chmod(0o644)
            path.unlink()
        folder.rmdir()
