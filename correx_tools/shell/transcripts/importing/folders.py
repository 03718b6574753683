"""Importing a folder of transcripts: every file under it that a reader recognises.

Each transcript is its own session (each of a Goose database's sessions too; an
evaluation's verdicts, ``report.json`` and OpenHands' ``instance_<task>.log``, are read
with the runs they judge, not as files of their own),
written all or nothing; a file that fails is refused with its reason and the
others go on; a file no reader recognises is skipped, with the reason. Run
again, the import writes only what is new: sessions already there are left
as they are, sessions whose file grew get the new events.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import final

from returns.result import Success

from ...stores.port import EventStore
from ..common.evaluations import is_verdict
from ..errors import TranscriptError, Unreadable, Unrecognised
from ..recognising import default_name, load
from .importing import DEFAULT, TranscriptImport, write
from .options import ImportOptions

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


@final
@dataclass(frozen=True, slots=True)
class FolderImport:
    """Every file a folder's import looked at, in path order, and the counts of its summary."""

    files: tuple[FileImport, ...] = field(default=())

    def with_files(self, more: Iterable[FileImport]) -> FolderImport:
        """These files and ``more``, in path order."""
        return FolderImport(tuple(sorted((*self.files, *more), key=lambda file: file.path)))

    def count(self, what: str) -> int:
        """``new``, ``grown``, ``already`` or ``refused`` sessions; ``transcripts`` or
        ``skipped`` files."""
        sessions = [done for file in self.files for done in file.imported]
        return {
            "new": sum(1 for s in sessions if s.events and not s.grown),
            "grown": sum(1 for s in sessions if s.grown),
            "already": sum(1 for s in sessions if s.already_imported),
            "refused": sum(len(file.refused) for file in self.files),
            "transcripts": sum(1 for file in self.files if not file.skipped),
            "skipped": sum(1 for file in self.files if file.skipped),
        }[what]


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
                or is_verdict(name)
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


def import_folder(
    root: Path, store: EventStore, options: ImportOptions = DEFAULT, *, exclude: Iterable[Path] = ()
) -> FolderImport:
    """Import every transcript under ``root`` (see the module docstring), but ``exclude``."""
    paths, unreadable = transcript_files(root, exclude)
    return import_files(paths, store, options).with_files(unreadable)


def import_files(
    paths: Iterable[Path],
    store: EventStore,
    options: ImportOptions = DEFAULT,
    *,
    progress: Callable[[int], None] | None = None,
) -> FolderImport:
    """Import each file's transcripts; ``progress`` is told each file's size once it is done."""
    results = []
    for path in paths:
        results.append(import_file(path, store, options))
        if progress is not None:
            progress(file_size(path))
    return FolderImport(tuple(results))


def import_file(path: Path, store: EventStore, options: ImportOptions = DEFAULT) -> FileImport:
    """Every session of one file, each all or nothing; never an exception for a bad file."""
    source = str(path)
    try:
        transcripts = load(path, options.format, default_name(path), lenient=options.lenient)
    except Unrecognised as error:
        return FileImport(path, skipped=error.short)
    except Unreadable as error:
        return FileImport(path, refused=(TranscriptError(source=source, where=error.where,
                                                         message=error.message),))  # fmt: skip
    except (OSError, RecursionError, MemoryError) as error:
        return FileImport(path, refused=(TranscriptError(source=source, where="",
                                                         message=_reason(error)),))  # fmt: skip
    imported, refused = [], []
    for transcript in transcripts:
        result = write(transcript, source, store, options)
        if isinstance(result, Success):
            imported.append(result.unwrap())
        else:
            refused.append(result.failure())
    return FileImport(path, tuple(imported), tuple(refused))


def _reason(error: BaseException) -> str:
    if isinstance(error, OSError):
        return f"cannot read it ({error.strerror or error})"
    return "too large or too deeply nested to read"


def file_size(path: Path) -> int:
    """The size of the file at ``path`` in bytes (0 if it is gone)."""
    try:
        return path.stat().st_size
    except OSError:
        return 0
