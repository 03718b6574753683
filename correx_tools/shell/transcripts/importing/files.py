"""Which files under a folder may be transcripts, and which are never opened: the listing a
folder's import and the cache's look both go by (a look whose files did not change needs
nothing else of the import)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, final

from ..common.evaluations import is_verdict
from ..errors import TranscriptError

if TYPE_CHECKING:
    from .importing import TranscriptImport

SUFFIXES = frozenset({".jsonl", ".json", ".ndjson", ".log", ".traj", ".md", ".db"})
"""The file names a folder's import looks at (others are never transcripts)."""
_NOT_SEARCHED = frozenset({".git"})


@final
@dataclass(frozen=True, slots=True)
class FileImport:
    """What a folder's import did with one file: the sessions it imported (or found there
    already), the ones it refused, or why the file is no transcript."""

    path: Path
    imported: tuple[TranscriptImport, ...] = ()
    refused: tuple[TranscriptError, ...] = ()
    skipped: str = ""


def transcript_files(
    root: Path, exclude: Iterable[Path] = ()
) -> tuple[list[Path], list[FileImport]]:
    """The files under ``root`` that may be transcripts, in path order (``exclude``: files
    never to read, such as the store being written), and the folders that could not be
    read, each refused with the reason (what they hold was not imported)."""
    left_out = {path.resolve() for path in exclude}
    left_out_names = {path.name for path in left_out}  # only a file so named is resolved
    found = []
    unreadable: list[FileImport] = []

    def refuse(error: OSError) -> None:
        where = str(error.filename or root)
        reason = f"cannot read this folder ({error.strerror or error})"
        unreadable.append(
            FileImport(
                Path(where), refused=(TranscriptError(source=where, where="", message=reason),)
            )
        )

    for folder, folders, names in os.walk(root, onerror=refuse):
        folders[:] = sorted(name for name in folders if name not in _NOT_SEARCHED)
        for name in names:
            path = Path(folder) / name
            if (
                path.suffix not in SUFFIXES
                or is_verdict(name)  # read with the run it judges (`evaluations`)
                or (name in left_out_names and path.resolve() in left_out)
            ):
                continue
            passed_by = never_read(path)
            if passed_by is None:
                found.append(path)
            else:
                unreadable.append(passed_by)
    return sorted(found), unreadable


def shown(path: Path) -> str:
    """A path as text to print: bytes of its name that are not UTF-8 as ``\\xNN``."""
    return os.fsencode(path).decode("utf-8", "backslashreplace")


def never_read(path: Path) -> FileImport | None:
    """A file that may be a transcript but is never opened, with why; ``None`` for one to
    read. A name that is not UTF-8 text is refused (no store can keep it, and a session is
    named after its file); something other than a regular file is skipped (opening a pipe
    waits for a writer, a device never ends)."""
    try:
        str(path).encode("utf-8")
    except UnicodeEncodeError:
        reason = "its name is not UTF-8 text; rename the file to read it"
        refusal = TranscriptError(source=shown(path), where="", message=reason)
        return FileImport(path, refused=(refusal,))
    try:
        mode = path.stat().st_mode
    except OSError:
        return None  # reading it says why (a dangling link, a file gone meanwhile)
    if not stat.S_ISREG(mode):
        return FileImport(path, skipped="not a regular file (a pipe, a socket or a device)")
    return None


def file_size(path: Path) -> int:
    """The size of the file at ``path`` in bytes (0 if it is gone)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0
