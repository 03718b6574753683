"""Which files under a folder may be transcripts, and which are never opened: the listing a
folder's import and the cache's look both go by (a look whose files did not change needs
nothing else of the import)."""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple, final

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
    found, unreadable = looked_at(root, exclude)
    return sorted(Path(file.path) for file in found), unreadable


class LookedAt(NamedTuple):
    """A file `looked_at` found: its path as the walk reached it, its absolute path, and
    what one ``stat`` of it says (``None``: it could not be looked at; reading it says why)."""

    path: str
    absolute: str
    status: os.stat_result | None


def looked_at(root: Path, exclude: Iterable[Path] = ()) -> tuple[list[LookedAt], list[FileImport]]:
    """The files `transcript_files` gives, in no order, each with one ``stat`` of it, and
    the files and folders it passes by (refused or skipped: `never_read`'s). No path
    object is made for a file it takes: a look at a folder of many files whose stamps did
    not change needs nothing more of each than this."""
    left_out = {path.resolve() for path in exclude}
    left_out_names = {path.name for path in left_out}  # only a file so named is resolved
    found: list[LookedAt] = []
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
        # A name holds no separator: each file's path, and its absolute one, is its folder's
        # and its name (Path(path) is Path(folder) / name).
        within = os.path.join(folder, "")
        absolute = os.path.join(os.path.abspath(folder), "")
        folder_text = _is_text(folder)
        for name in names:
            # As `Path.suffix` reads it: the last dot's, unless the name begins with it. A
            # verdict is read with the run it judges (`evaluations`).
            dot = name.rfind(".")
            if not 0 < dot < len(name) - 1 or name[dot:] not in SUFFIXES or is_verdict(name):
                continue
            path = within + name
            if name in left_out_names and Path(path).resolve() in left_out:
                continue
            if not (folder_text and (name.isascii() or _is_text(name))):
                unreadable.append(_not_utf8(Path(path)))
                continue
            try:
                status: os.stat_result | None = os.stat(path)
            except OSError:
                status = None  # reading it says why (a dangling link, a file gone meanwhile)
            if status is not None and not stat.S_ISREG(status.st_mode):
                unreadable.append(FileImport(Path(path), skipped=NOT_REGULAR))
                continue
            found.append(LookedAt(path, absolute + name, status))
    return found, unreadable


def _is_text(name: str) -> bool:
    """Whether a name is UTF-8 text (one that is not holds bytes it could not decode)."""
    try:
        name.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


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
        return _not_utf8(path)
    try:
        mode = path.stat().st_mode
    except OSError:
        return None  # reading it says why (a dangling link, a file gone meanwhile)
    if not stat.S_ISREG(mode):
        return FileImport(path, skipped=NOT_REGULAR)
    return None


NOT_REGULAR = "not a regular file (a pipe, a socket or a device)"


def _not_utf8(path: Path) -> FileImport:
    reason = "its name is not UTF-8 text; rename the file to read it"
    return FileImport(
        path, refused=(TranscriptError(source=shown(path), where="", message=reason),)
    )


def file_size(path: Path) -> int:
    """The size of the file at ``path`` in bytes (0 if it is gone)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0
