"""Running a command as a user without privileges, for the tests of permission bits."""

from __future__ import annotations

import os
import shutil
import tempfile
from pathlib import Path

import pytest


def as_nobody() -> list[str]:
    """What runs a command as an unprivileged user, when these tests run as root (for whom
    no permission bit applies); nothing otherwise."""
    if os.geteuid() != 0:
        return []
    setpriv = shutil.which("setpriv")
    if setpriv is None:
        pytest.fail("setpriv is needed to run a command as another user")
    return [setpriv, "--reuid=65534", "--regid=65534", "--clear-groups"]


def open_folder() -> Path:
    """A new folder that any user may read and write (pytest's own are its owner's only)."""
    folder = Path(tempfile.mkdtemp(prefix="correx-open-"))
    folder.chmod(0o777)
    return folder
