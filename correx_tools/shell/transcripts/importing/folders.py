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

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import final

from returns.result import Success

from ...stores.port import EventStore
from ..errors import TranscriptError, Unreadable, Unrecognised
from ..recognising import default_name, load
from .files import FileImport, file_size, transcript_files
from .importing import DEFAULT, write
from .options import ImportOptions


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


def import_folder(
    root: Path, store: EventStore, options: ImportOptions = DEFAULT, *, exclude: Iterable[Path] = ()
) -> FolderImport:
    """Import every transcript under ``root`` (see the module docstring), but ``exclude``."""
    paths, unreadable = transcript_files(root, exclude)
    return import_files(paths, store, options, root=root).with_files(unreadable)


def import_files(
    paths: Iterable[Path],
    store: EventStore,
    options: ImportOptions = DEFAULT,
    *,
    progress: Callable[[int], None] | None = None,
    root: Path | None = None,
) -> FolderImport:
    """Import each file's transcripts; ``progress`` is told each file's size once it is done;
    ``root`` is the folder they were found under (`recognising.default_name`)."""
    results = []
    for path in paths:
        results.append(import_file(path, store, options, root=root))
        if progress is not None:
            progress(file_size(path))
    return FolderImport(tuple(results))


def import_file(
    path: Path, store: EventStore, options: ImportOptions = DEFAULT, *, root: Path | None = None
) -> FileImport:
    """Every session of one file, each all or nothing (named, where the transcript records
    no id, by where it lies under ``root``: `recognising.default_name`); never an exception
    for a bad file."""
    source = str(path)
    name = default_name(path, root)
    try:
        transcripts = load(path, options.format, name, lenient=options.lenient)
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
