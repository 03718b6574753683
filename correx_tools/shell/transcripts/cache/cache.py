"""A cache of transcripts: a SQLite store kept in step with the files agents write.

A transcript, or a folder of them, is read as a store through a cache: the
sessions its files give, imported into a SQLite file of the cache's own. Each
`TranscriptCache.look` brings the cache in step with the files, reading only
what changed since the last look:

* a file whose size, time and inode are as the cache last saw them costs one
  ``stat`` (its ``manifest`` row);
* a new file is imported, each of its sessions all or nothing;
* a file that changed is read again, and each session compared with what the
  cache holds: the same events followed by more (a file that grew), and only
  the new ones are added; other events (a file rewritten in place: a rewind, a
  compaction), and the session is imported again whole;
* a file that is gone takes its sessions with it;
* a file no reader recognises is skipped, a transcript that cannot be read is
  refused, each with the reason (said once: the next look passes it by until
  it changes; `not_shown` names every refused file after any look); a session
  another file gave first is not taken again (with other events, the file is
  refused);
* many new files are read by worker processes, the look's own process writing
  what they read, in path order, as it would have (`filling`).

A session whose transcript records no id of its own is named by its file's place
under the root it was found in (`recognising.default_name`), so two files under a
root never give one such session.

The transcripts themselves are only ever read: nothing is written beside
them, and no lock is taken on them. A half-written last line is left out
until it is whole, as an import leaves it. Whatever the cache holds is
exactly what importing the same files into a new store gives (a property
test holds it to that, over any sequence of appends and rewrites).
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import final

from ...stores.sqlite import SQLiteEventStore
from ..importing.files import FileImport, looked_at, never_read
from ..importing.options import ImportOptions
from .look import Look, Watcher
from .manifest import (
    RULES,
    WITHOUT_CONVERSATION,
    FileRow,
    Manifest,
    foreign_store,
    key_of,
    stamp_of,
)
from .passing import Found, Pass


class CacheError(Exception):
    """A cache that cannot be used as it is: the message says why and what to do."""


@final
class TranscriptCache:
    """The cache at ``path`` of the transcripts under ``roots`` (files or folders).

    The cache's store is created if missing. A file at ``path`` that is neither
    a cache nor an empty store (a store of someone's own, say) is a `CacheError`:
    it is never written as a cache. ``conversation`` false leaves the conversation around
    the calls out of its sessions. ``workers`` is how many processes may read many new
    files at once (`filling`; 1: this one alone; ``None``: one a core).
    """

    def __init__(
        self,
        path: Path,
        roots: Sequence[Path],
        *,
        conversation: bool = True,
        workers: int | None = None,
    ) -> None:
        self.path, self.roots = path, [Path(root) for root in roots]
        self.options = ImportOptions(conversation=conversation)
        self.rules = RULES if conversation else RULES + WITHOUT_CONVERSATION
        self.workers = workers
        if foreign_store(path):
            raise CacheError(
                f"{path}: is not a cache of transcripts (it holds sessions of its own, or is "
                "another file); give another --cache"
            )
        self.store = SQLiteEventStore(path)
        try:
            self._manifest = Manifest(path)
        except BaseException:
            self.store.close()
            raise
        self._closed = False
        self._leftovers = [path, *(path.with_name(path.name + end) for end in _SIDE_FILES)]

    def look(self, watcher: Watcher | None = None) -> Look:
        """Bring the cache in step with the files (see the module docstring)."""
        with self._locked():
            found, unreadable = self.listing()
            done = Pass(self.store, self._manifest, rules=self.rules, options=self.options,
                        watcher=watcher or Watcher(), workers=self.workers)  # fmt: skip
            return done.run(found, unreadable)

    def file_row(self, path: Path) -> FileRow | None:
        """What the cache knows of one file (after a look: what became of it)."""
        return self._manifest.row(key_of(path))

    def not_shown(self, look: Look) -> list[tuple[str, str]]:
        """Every file under the roots the cache does not show as it is, each with why, after
        ``look``: a transcript it could not read (its sessions, if any, as the file was when
        it last could), a session another file gave first with other events (whichever look
        found them); and each folder ``look`` could not read."""
        return sorted([*look.unreadable, *self._manifest.refused()])

    def holds_sessions(self) -> bool:
        """Whether the cache holds any session."""
        return self._manifest.holds_sessions()

    def check_writable(self) -> None:
        """Nothing when the cache can be written; the database's error otherwise."""
        self._manifest.check_writable()

    def listing(self) -> tuple[list[Found], list[tuple[str, str]]]:
        """The files under the roots that may be transcripts, each with the root it was
        found under and its stamp; and the folders that could not be read, each with the
        reason."""
        found: list[Found] = []
        unreadable: list[tuple[str, str]] = []
        for root in self.roots:
            if not root.is_dir():
                passed_by = never_read(root)
                if passed_by is None:
                    found.append(Found(key_of(root), str(root), root, *self._stamp(str(root))))
                else:  # named on its own: said, whether refused or skipped
                    unreadable.append(_why(passed_by))
                continue
            files, refused = looked_at(root, exclude=self._leftovers)
            found += [
                Found(file.absolute, file.path, root, None, 0) if file.status is None else
                Found(file.absolute, file.path, root,
                      stamp_of(file.path, file.status, self.rules), file.status.st_size)
                for file in files
            ]  # fmt: skip
            unreadable += [_why(file) for file in refused if file.refused]
        return found, unreadable

    def _stamp(self, path: str) -> tuple[str | None, int]:
        try:
            found = os.stat(path)
        except OSError:
            return None, 0  # gone since it was listed: the next look
        return stamp_of(path, found, self.rules), found.st_size

    @contextlib.contextmanager
    def _locked(self) -> Iterator[None]:
        """One look at a time across processes (another command on the same folder)."""
        try:
            import fcntl  # noqa: PLC0415 - POSIX only; elsewhere looks are not held apart
        except ImportError:
            yield
            return
        with open(self.path.with_name(self.path.name + ".lock"), "a+b") as lock:
            fcntl.flock(lock, fcntl.LOCK_EX)
            try:
                yield
            finally:
                fcntl.flock(lock, fcntl.LOCK_UN)

    def close(self) -> None:
        """Close the cache's store and table (again: nothing)."""
        if not self._closed:
            self._closed = True
            self._manifest.close()
            self.store.close()


def _why(file: FileImport) -> tuple[str, str]:
    """``(where, reason)`` of a file or folder never read."""
    if file.refused:
        return file.refused[0].source, file.refused[0].message
    return str(file.path), file.skipped


_SIDE_FILES = ("-wal", "-shm", "-journal", ".lock")
