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
  it changes); a session another file gave first is not taken again.

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
from dataclasses import dataclass, field
from pathlib import Path
from typing import final

from returns.result import Success

from ....core.lifecycle.events import StoredEvent
from ....core.tools.ids import SessionId
from ...stores.sqlite import SQLiteEventStore
from ..errors import Unreadable, Unrecognised
from ..importing.events import transcript_events
from ..importing.folders import FileImport, file_size, never_read, transcript_files
from ..importing.importing import held_of
from ..importing.options import ImportOptions
from ..recognising import default_name, is_database, load
from .manifest import RULES, WITHOUT_CONVERSATION, FileRow, Manifest, foreign_store, stamp_of

BATCH_EVENTS = 5_000
"""Events written in one transaction when many small files are read at once. More held at
once costs more than the transactions it saves: a batch of 50,000 took 40% more time, the
collector walking the events held (measured on 1 MB Claude Code files)."""


class CacheError(Exception):
    """A cache that cannot be used as it is: the message says why and what to do."""


@final
@dataclass(slots=True)
class Look:
    """What one look did: the files it found, and for each file it read, what became of it.

    Each list holds ``(file, session)`` pairs, or ``(file, reason)`` for
    ``skipped`` and ``refused``; only files read in this look are in them.
    """

    files: int = 0
    read: int = 0
    new: list[tuple[str, str]] = field(default_factory=list)
    grown: list[tuple[str, str]] = field(default_factory=list)
    rewritten: list[tuple[str, str]] = field(default_factory=list)
    removed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """Whether the cache's sessions changed."""
        return bool(self.new or self.grown or self.rewritten or self.removed)


class Watcher:
    """Told what a look does as it does it (the command draws a bar); does nothing here."""

    def reading(self, files: int, size: int) -> None:
        """About to read ``files`` files of ``size`` bytes in all."""

    def done(self, size: int) -> None:
        """One file of ``size`` bytes read."""


@final
class TranscriptCache:
    """The cache at ``path`` of the transcripts under ``roots`` (files or folders).

    The cache's store is created if missing. A file at ``path`` that is neither
    a cache nor an empty store (a store of someone's own, say) is a `CacheError`:
    it is never written as a cache. ``conversation`` false leaves the conversation around
    the calls out of its sessions.
    """

    def __init__(self, path: Path, roots: Sequence[Path], *, conversation: bool = True) -> None:
        self.path, self.roots = path, [Path(root) for root in roots]
        self.options = ImportOptions(conversation=conversation)
        self.rules = RULES if conversation else RULES + WITHOUT_CONVERSATION
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
            return _Pass(self, watcher or Watcher()).run()

    def file_row(self, path: Path) -> FileRow | None:
        """What the cache knows of one file (after a look: what became of it)."""
        return self._manifest.row(key_of(path))

    def check_writable(self) -> None:
        """Nothing when the cache can be written; the database's error otherwise."""
        self._manifest.check_writable()

    def listing(self) -> tuple[list[Path], list[tuple[str, str]]]:
        """The files under the roots that may be transcripts, in path order, and the folders
        that could not be read, each with the reason."""
        found: list[Path] = []
        unreadable: list[tuple[str, str]] = []
        for root in self.roots:
            if not root.is_dir():
                passed_by = never_read(root)
                if passed_by is None:
                    found.append(root)
                else:  # named on its own: said, whether refused or skipped
                    unreadable.append(_why(passed_by))
                continue
            paths, refused = transcript_files(root, exclude=self._leftovers)
            found += paths
            unreadable += [_why(file) for file in refused if file.refused]
        return found, unreadable

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


def key_of(path: Path) -> str:
    """How the cache names a file: its absolute path (the same however it was reached)."""
    return os.path.abspath(path)


class _Pass:
    """One look: what the manifest knew, what is found now, and what is to be written."""

    def __init__(self, cache: TranscriptCache, watcher: Watcher) -> None:
        self.cache, self.store, self.watcher = cache, cache.store, watcher
        self.manifest = cache._manifest
        self.look = Look()
        self.pending: dict[str, list[StoredEvent]] = {}
        """Sessions to write, each with the events the file gives now (all of them)."""
        self.held: dict[str, int] = {}
        self.replacing: set[str] = set()
        """Sessions a rewritten file gives other events: removed as their new ones are written,
        in the same transaction, so no reader finds one missing meanwhile."""
        self.batch_rows: list[FileRow] = []
        self.batch_files: dict[str, str] = {}
        self.rows_to_save: list[FileRow] = []
        self.owners: dict[str, str] = {}
        """Which file gives each session the cache holds."""

    def run(self) -> Look:
        rows = self.manifest.rows()
        paths, unreadable = self.cache.listing()
        self.look.files = len(paths)
        self.look.refused += unreadable
        stamps: dict[str, tuple[Path, str]] = {}
        for path in paths:
            with contextlib.suppress(OSError):  # gone since it was listed: the next look
                stamps[key_of(path)] = (path, stamp_of(path, self.cache.rules))
        kept = tuple(key_of(Path(folder)) + os.sep for folder, _ in unreadable)
        gone = [key for key in rows if key not in stamps and not key.startswith(kept)]
        freed = {session for key in gone for session in rows[key].sessions}
        self.forget(freed, [(rows[key].path, s) for key in gone for s in rows[key].sessions])
        changed = [
            (path, key, stamp)
            for key, (path, stamp) in stamps.items()
            if key not in rows
            or rows[key].stamp != stamp
            or set(rows[key].shared) & freed  # the file that gave these first is gone
        ]
        changed.sort(key=lambda item: item[0])
        self.owners = {
            session: key for key, row in rows.items() if key not in gone for session in row.sessions
        }
        self.watcher.reading(len(changed), sum(file_size(path) for path, _, _ in changed))
        for path, key, stamp in changed:
            self.read_file(path, key, stamp, rows.get(key))
            self.look.read += 1
            self.watcher.done(file_size(path))
            if sum(len(events) for events in self.pending.values()) >= BATCH_EVENTS:
                self.flush()
        self.flush()
        self.manifest.save(self.rows_to_save, gone)
        return self.look

    # -- one file ----------------------------------------------------------------------------

    def read_file(self, path: Path, key: str, stamp: str, before: FileRow | None) -> None:
        shown = str(path)
        was = before.sessions if before is not None else ()
        try:
            data = None if is_database(path) else path.read_bytes()
            transcripts = load(path, "auto", default_name(path), data=data)
        except Unrecognised as error:
            self.look.skipped.append((shown, error.short))
            self.save(FileRow(key, stamp, was, (), "skipped", error.short))
            return
        except Unreadable as error:
            reason = f"{error.where}: {error.message}" if error.where else error.message
            self.refuse(FileRow(key, stamp, was), shown, reason)
            return
        except (OSError, RecursionError, MemoryError) as error:
            reason = (
                f"cannot read it ({error.strerror or error})"
                if isinstance(error, OSError)
                else "too large or too deeply nested to read"
            )
            self.refuse(FileRow(key, stamp, was), shown, reason)
            return
        own: list[str] = []
        shared: list[str] = []
        reasons: list[str] = []
        for transcript in transcripts:
            session = transcript.session
            try:
                events, _ = transcript_events(transcript, SessionId(session), self.cache.options)
            except Unreadable as error:
                reasons.append(f"{error.where}: {error.message}" if error.where else error.message)
                if session in was:
                    own.append(session)  # kept as it was until the file reads again
                continue
            if not events:
                continue  # no call yet, and no time: no session until the file says more
            owner = self.owners.get(session)
            if owner is not None and owner != key:
                shared.append(session)
                if not self.same(session, events):
                    reasons.append(
                        f"session {session} is given by {owner} too, with other events: "
                        "only that file's is shown"
                    )
                continue
            self.take(shown, session, events)
            self.owners[session] = key
            own.append(session)
        left = [session for session in was if session not in own]
        self.forget(set(left), [(shown, session) for session in left])
        row = FileRow(key, stamp, tuple(own), tuple(shared), "refused" if reasons else "read",
                      "; ".join(reasons))  # fmt: skip
        if reasons:
            self.look.refused += [(shown, reason) for reason in reasons]
        self.save(row, shown, own)

    def refuse(self, row: FileRow, shown: str, reason: str) -> None:
        self.look.refused.append((shown, reason))
        self.save(FileRow(row.path, row.stamp, row.sessions, (), "refused", reason))

    def save(self, row: FileRow, shown: str = "", sessions: Sequence[str] = ()) -> None:
        """Keep the row, to be written once its sessions are (with the batch)."""
        if any(session in self.pending for session in sessions):
            self.batch_rows.append(row)
            for session in sessions:
                self.batch_files.setdefault(session, shown)
        else:
            self.rows_to_save.append(row)

    def take(self, shown: str, session: str, events: list[StoredEvent]) -> None:
        """Hold the session's new events for the batch: the ones the cache lacks."""
        held = held_of(self.store, SessionId(session), events)
        if held is None:
            self.owners.pop(session, None)
            self.replacing.add(session)
            self.look.rewritten.append((shown, session))
            held = 0
        elif held == 0:
            self.look.new.append((shown, session))
        elif held < len(events):
            self.look.grown.append((shown, session))
        if held < len(events):
            self.pending[session] = events
            self.held[session] = held

    def same(self, session: str, events: list[StoredEvent]) -> bool:
        """Whether the session another file gave holds exactly ``events``."""
        if session in self.pending:
            return self.pending[session] == events
        return held_of(self.store, SessionId(session), events) == len(events)

    def forget(self, sessions: set[str], removed: list[tuple[str, str]]) -> None:
        if not sessions:
            return
        self.manifest.forget_sessions(sorted(sessions))
        for session in sessions:
            self.owners.pop(session, None)
        self.look.removed += removed

    # -- writing -------------------------------------------------------------------------------

    def flush(self) -> None:
        """Write the held sessions' new events, in one transaction; a batch refused is written
        a session at a time, so one bad session refuses only its file."""
        if not self.pending:
            self.rows_to_save += self.batch_rows
            self.batch_rows = []
            return
        new = [
            event
            for session, events in self.pending.items()
            for event in events[self.held[session] :]
        ]
        failed: dict[str, str] = {}
        replaced = [session for session in self.pending if session in self.replacing]
        if not isinstance(self.store.import_replacing(replaced, new), Success):
            for session, events in self.pending.items():
                replacing = [session] if session in self.replacing else []
                result = self.store.import_replacing(replacing, events[self.held[session] :])
                if not isinstance(result, Success):
                    failed[session] = str(result.failure())
                    self.manifest.forget_sessions(replacing)  # its file refused: it goes
        for row in self.batch_rows:
            lost = [s for s in row.sessions if s in failed]
            if not lost:
                self.rows_to_save.append(row)
                continue
            reason = "; ".join(f"the cache refused session {s}: {failed[s]}" for s in lost)
            self.look.refused.append((self.batch_files.get(lost[0], row.path), reason))
            kept = tuple(s for s in row.sessions if s not in failed)
            self.rows_to_save.append(
                FileRow(row.path, row.stamp, kept, row.shared, "refused", reason)
            )
        if failed:
            for told in (self.look.new, self.look.grown, self.look.rewritten):
                told[:] = [(file, session) for file, session in told if session not in failed]
        self.pending, self.held, self.batch_rows, self.batch_files = {}, {}, [], {}
        self.replacing = set()
