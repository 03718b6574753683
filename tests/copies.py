"""SQLite stores that several test modules build the same way: built once in a process (a
test worker) and copied for each caller, who may then write to the copy."""

from __future__ import annotations

import atexit
import shutil
import sqlite3
import tempfile
from collections.abc import Callable
from pathlib import Path

_BUILT: dict[str, Path] = {}
"""Each store built in this process, by the key it was asked for with."""


def copy_of(key: str, build: Callable[[Path], object], path: Path) -> Path:
    """``path``, a copy of the store ``build(its path)`` writes, built the first time ``key``
    is asked for in this process."""
    built = _BUILT.get(key)
    if built is None:
        folder = Path(tempfile.mkdtemp(prefix="correx-tests-"))
        atexit.register(shutil.rmtree, folder, ignore_errors=True)
        built = folder / path.name
        build(built)
        _BUILT[key] = built
    source, target = sqlite3.connect(built), sqlite3.connect(path)
    try:
        source.backup(target)  # whole and consistent, whatever the journal holds
    finally:
        source.close()
        target.close()
    return path
