"""One look at a cache's files (the rules are the cache's, `cache`): what the manifest knew,
what is found now, what is read again, and what is written.

A look whose files did not change reads none, and imports nothing that reads one: the
readers (`reading`) and the workers (`filling`) are imported when a file is to be read.
"""

from __future__ import annotations

import os
from collections.abc import Generator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, NamedTuple

from returns.result import Success

from ....core.lifecycle.events import StoredEvent
from ....core.tools.ids import SessionId
from ...stores.sqlite import SQLiteEventStore
from ..importing.options import ImportOptions
from ..recognising import default_name
from .look import Look, Watcher
from .manifest import FileRow, Manifest, key_of

if TYPE_CHECKING:
    from ...stores.sql.prepared import PreparedSession
    from .reading import FileRead

BATCH_EVENTS = 5_000
"""Events written in one transaction when many small files are read at once. More held at
once costs more than the transactions it saves: a batch of 50,000 took 40% more time, the
collector walking the events held (measured on 1 MB Claude Code files)."""

IN_PARALLEL_FROM = 4_000_000
"""Bytes of new files from which a look reads them in worker processes (`filling`): below,
the workers' start (about a third of a second each, spent importing) costs more than it
saves."""
LARGEST_SENT = 8_000_000
"""Bytes of the largest file a worker reads: a worker holds a file's sessions whole, as
events and then as rows, where this process writes a large session in runs."""


class Found(NamedTuple):
    """A file found: how the cache names it (`key_of`), its path as found (as text: a path
    object is made only for a file that is read), the root it was found under (itself, for
    a file named on its own), its stamp (`stamp_of`; ``None``: it could not be looked at,
    gone since it was listed, say: the next look reads it) and its size, both from one
    ``stat``."""

    key: str
    path: str
    root: Path
    stamp: str | None
    size: int


class Pass:
    """One look: what the manifest knew, what is found now, and what is to be written.

    ``workers`` is how many processes may read new files at once (1: this one alone;
    ``None``: one a core, `filling.fill_workers`).
    """

    def __init__(
        self,
        store: SQLiteEventStore,
        manifest: Manifest,
        *,
        rules: str,
        options: ImportOptions,
        watcher: Watcher,
        workers: int | None,
    ) -> None:
        self.store, self.manifest, self.rules, self.options = store, manifest, rules, options
        self.watcher, self.workers = watcher, workers
        self.look = Look()
        self.pending: dict[str, list[StoredEvent]] = {}
        """Sessions to write, each with the events the file gives now (all of them)."""
        self.held: dict[str, int] = {}
        self.ready: dict[str, PreparedSession] = {}
        """New sessions whose rows a worker process made, to write as they are."""
        self.events_held = 0
        """The events held for the next batch, as events or as rows."""
        self.stored: set[str] = set()
        """The sessions the store held when workers began to read new files."""
        self.replacing: set[str] = set()
        """Sessions a rewritten file gives other events: removed as their new ones are written,
        in the same transaction, so no reader finds one missing meanwhile."""
        self.batch_rows: list[FileRow] = []
        self.batch_files: dict[str, str] = {}
        self.rows_to_save: list[FileRow] = []
        self.owners: dict[str, str] = {}
        """Which file gives each session the cache holds."""

    def run(self, found: Sequence[Found], unreadable: list[tuple[str, str]]) -> Look:
        self.look.files = len(found)
        self.look.refused += unreadable
        self.look.unreadable += unreadable
        stamps = {file.key: file for file in found if file.stamp}
        known = self.manifest.stamps()
        kept = tuple(key_of(Path(folder)) + os.sep for folder, _ in unreadable)
        gone = [key for key in known if key not in stamps and not key.startswith(kept)]
        if not gone and all(known.get(key) == file.stamp for key, file in stamps.items()):
            return self.look  # nothing changed: nothing to read, nothing to write
        rows = self.manifest.rows()
        freed = {session for key in gone for session in rows[key].sessions}
        self.forget(freed, [(rows[key].path, s) for key in gone for s in rows[key].sessions])
        changed = [
            (Path(file.path), file.root, key, file.stamp or "")
            for key, file in stamps.items()
            if key not in rows
            or rows[key].stamp != file.stamp
            or set(rows[key].shared) & freed  # the file that gave these first is gone
        ]
        changed.sort(key=lambda item: item[0].parts)  # as paths sort, without their __lt__
        self.owners = {
            session: key for key, row in rows.items() if key not in gone for session in row.sessions
        }
        sizes = [stamps[key].size for _, _, key, _ in changed]
        self.watcher.reading(len(changed), sum(sizes))
        reads = self.reads_elsewhere(changed, sizes, rows)
        for (path, root, key, stamp), size in zip(changed, sizes, strict=True):
            before = rows.get(key)
            sent = before is None and size <= LARGEST_SENT
            read = next(reads) if reads is not None and sent else None
            if read is None or not self.took_ready(path, key, stamp, read):
                self.took(path, key, stamp, before, self.read_here(path, root))
            self.look.read += 1
            self.watcher.done(size)
            if self.events_held >= BATCH_EVENTS:
                self.flush()
        if reads is not None:
            reads.close()  # every file is in: the workers end now, not when this is collected
        self.flush()
        self.manifest.save(self.rows_to_save, gone)
        return self.look

    # -- reading ---------------------------------------------------------------------------

    def read_here(self, path: Path, root: Path) -> FileRead:
        """The file read in this process."""
        from .reading import read_file  # noqa: PLC0415 - only a look that reads a file

        return read_file(path, default_name(path, root), self.options)

    def reads_elsewhere(
        self,
        changed: list[tuple[Path, Path, str, str]],
        sizes: list[int],
        rows: dict[str, FileRow],
    ) -> Generator[FileRead | None, None, None] | None:
        """What the new files (none of which the cache knew) give, read by worker processes
        in their order (`filling`); ``None`` when too few are new for workers to be worth
        their start."""
        new = [(path, root, size)
               for (path, root, key, _), size in zip(changed, sizes, strict=True)
               if key not in rows and size <= LARGEST_SENT]  # fmt: skip
        if self.workers == 1 or len(new) < 2 or sum(s for _, _, s in new) < IN_PARALLEL_FROM:
            return None
        from .filling import fill_workers, prepared  # noqa: PLC0415 - only a look of many

        self.stored = set(self.store.sessions())
        workers = self.workers or fill_workers()
        return prepared(new, workers, self.options, self.store.preparer())

    # -- one file ----------------------------------------------------------------------------

    def took_ready(self, path: Path, key: str, stamp: str, read: FileRead) -> bool:
        """Take what a worker read of a new file; false when the file is to be read here
        instead: a session it gives is given by another file too, or the cache holds it
        already (left by a look stopped before its table was written), or a worker could not
        make its rows (the writer says why)."""
        if not (read.skipped or read.refused) and any(
            found.prepared is None
            or found.session in self.owners
            or found.session in self.pending
            or found.session in self.stored
            for found in read.sessions
            if not found.reason
        ):
            return False
        shown = str(path)
        if read.skipped or read.refused:
            self.took(path, key, stamp, None, read)
            return True
        own, reasons = [], []
        for found in read.sessions:
            if found.reason:
                reasons.append(found.reason)
                continue
            assert found.prepared is not None
            self.ready[found.session] = found.prepared
            self.events_held += len(found.prepared.events)
            self.owners[found.session] = key
            self.look.new.append((shown, found.session))
            own.append(found.session)
        self.file_done(FileRow(key, stamp, tuple(own), (), "refused" if reasons else "read",
                               "; ".join(reasons)), shown, own, reasons)  # fmt: skip
        return True

    def took(
        self, path: Path, key: str, stamp: str, before: FileRow | None, read: FileRead
    ) -> None:
        """Take what one file gives: each session new, grown or rewritten, or given by
        another file first; the file skipped or refused, with the reason."""
        shown = str(path)
        was = before.sessions if before is not None else ()
        if read.skipped:
            self.look.skipped.append((shown, read.skipped))
            self.save(FileRow(key, stamp, was, (), "skipped", read.skipped))
            return
        if read.refused:
            self.refuse(FileRow(key, stamp, was), shown, read.refused)
            return
        own: list[str] = []
        shared: list[str] = []
        reasons: list[str] = []
        for found in read.sessions:
            session = found.session
            if found.reason or found.events is None:
                reasons.append(found.reason)
                if session in was:
                    own.append(session)  # kept as it was until the file reads again
                continue
            owner = self.owners.get(session)
            if owner is not None and owner != key:
                shared.append(session)
                if not self.same(session, found.events):
                    reasons.append(
                        f"session {session} is given by {owner} too, with other events: "
                        "only that file's is shown"
                    )
                continue
            self.take(shown, session, found.events)
            self.owners[session] = key
            own.append(session)
        left = [session for session in was if session not in own]
        self.forget(set(left), [(shown, session) for session in left])
        row = FileRow(key, stamp, tuple(own), tuple(shared), "refused" if reasons else "read",
                      "; ".join(reasons))  # fmt: skip
        self.file_done(row, shown, own, reasons)

    def file_done(self, row: FileRow, shown: str, own: list[str], reasons: list[str]) -> None:
        if reasons:
            self.look.refused += [(shown, reason) for reason in reasons]
        self.save(row, shown, own)

    def refuse(self, row: FileRow, shown: str, reason: str) -> None:
        self.look.refused.append((shown, reason))
        self.save(FileRow(row.path, row.stamp, row.sessions, (), "refused", reason))

    def save(self, row: FileRow, shown: str = "", sessions: Sequence[str] = ()) -> None:
        """Keep the row, to be written once its sessions are (with the batch)."""
        if any(session in self.pending or session in self.ready for session in sessions):
            self.batch_rows.append(row)
            for session in sessions:
                self.batch_files.setdefault(session, shown)
        else:
            self.rows_to_save.append(row)

    def take(self, shown: str, session: str, events: list[StoredEvent]) -> None:
        """Hold the session's new events for the batch: the ones the cache lacks."""
        from ..importing.importing import held_of  # noqa: PLC0415 - only a look that reads

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
            self.events_held += len(events)
            self.held[session] = held

    def same(self, session: str, events: list[StoredEvent]) -> bool:
        """Whether the session another file gave holds exactly ``events``."""
        from ..importing.importing import held_of  # noqa: PLC0415 - only a look that reads

        if session in self.pending:
            return self.pending[session] == events
        if session in self.ready:  # a worker's rows: the events are compared as stored
            self.flush()
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
        """Write the held sessions' new events, in one transaction (the rows a worker made, in
        another); a batch refused is written a session at a time, so one bad session refuses
        only its file."""
        failed: dict[str, str] = {}
        if self.ready:
            failed |= self.written_ready()
        if self.pending:
            failed |= self.written_pending()
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
        self.pending, self.held, self.ready, self.events_held = {}, {}, {}, 0
        self.batch_rows, self.batch_files, self.replacing = [], {}, set()

    def written_ready(self) -> dict[str, str]:
        """Write the sessions a worker made; why each refused one was."""
        if isinstance(self.store.import_prepared(list(self.ready.values())), Success):
            return {}
        failed = {}
        for session, ready in self.ready.items():
            result = self.store.import_prepared([ready])
            if not isinstance(result, Success):
                failed[session] = str(result.failure())
        return failed

    def written_pending(self) -> dict[str, str]:
        """Write the held events; why each refused session was."""
        new = [
            event
            for session, events in self.pending.items()
            for event in events[self.held[session] :]
        ]
        replaced = [session for session in self.pending if session in self.replacing]
        if isinstance(self.store.import_replacing(replaced, new), Success):
            return {}
        failed = {}
        for session, events in self.pending.items():
            replacing = [session] if session in self.replacing else []
            result = self.store.import_replacing(replacing, events[self.held[session] :])
            if not isinstance(result, Success):
                failed[session] = str(result.failure())
                self.manifest.forget_sessions(replacing)  # its file refused: it goes
        return failed
