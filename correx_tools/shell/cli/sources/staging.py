"""Writing into DEST, whole or not at all, without ever removing what another process made.

A command that fills a store (``import``, ``import-transcript``) writes into an
existing DEST in its own transactions, and leaves it as it was when it fails.
A DEST that does not exist yet is made beside it under a temporary name, filled,
closed, then linked into place — a hard link, which never replaces a file — so
a half-filled store never carries DEST's name, and a failed import removes only
the temporary file it made. When another process made DEST meanwhile (two
imports racing into one new file), what was staged is copied into that DEST in
one transaction instead, or refused: nothing the other process wrote is lost.
A disk that fills up is said in one line naming the file, and leaves nothing.
"""

from __future__ import annotations

import errno
import os
import sqlite3
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import final

from returns.result import Success

from ...stores.addresses import POSTGRES_SCHEMES
from ...stores.port import EventStore, IndexedStore
from ..errors import CliError
from .stores import close_store, open_store, redact

_FULL = {errno.ENOSPC, errno.EFBIG, errno.EDQUOT}


@final
class Staging:
    """The store a command writes into, and whether to keep what it wrote."""

    def __init__(self, store: EventStore, dest: str, staged: Path | None = None) -> None:
        self.store = store
        self.kept = True
        self._dest, self._staged = dest, staged

    def discard(self) -> None:
        """Keep nothing of what was written (a new DEST is not made)."""
        self.kept = False

    def told(self, message: str) -> str:
        """``message`` naming DEST where it names the file staged for it (a user never
        heard of the hidden file a new DEST is filled in)."""
        return message if self._staged is None else _as_dest(message, self._staged, self._dest)


def _as_dest(message: str, staged: Path, dest: str) -> str:
    """``message`` with the file staged for DEST named as DEST."""
    return message.replace(str(staged), redact(dest))


@contextmanager
def writing_to(dest: str) -> Iterator[Staging]:
    """The store to fill for ``dest`` (see the module's docstring); a `CliError` for a disk
    that filled up."""
    if dest.endswith(("/", os.sep)) and not dest.startswith(POSTGRES_SCHEMES):
        raise CliError(f"{dest}: names a folder; DEST is a file (a .sqlite or .jsonl name)")
    if dest.startswith(POSTGRES_SCHEMES) or _holds_something(Path(dest)):
        with _full_disk(dest):
            staging = Staging(open_store(dest, create=True), dest)
            try:
                yield staging
            finally:
                close_store(staging.store)
        return
    path = Path(dest)
    staged = staged_path(path)
    try:
        with _full_disk(dest):
            staging = Staging(_opened(staged, dest), dest, staged)
            try:
                yield staging
            finally:
                close_store(staging.store)
            if staging.kept:
                _publish(staged, path)
    finally:
        _remove(staged)


def _opened(staged: Path, dest: str) -> EventStore:
    """The store staged for a new DEST; an error that names DEST, not the hidden file."""
    try:
        return open_store(str(staged), create=True)
    except CliError as error:
        raise CliError(_as_dest(str(error), staged, dest)) from None


def staged_path(dest: Path) -> Path:
    """The hidden file this process fills for a new DEST, beside it."""
    return dest.with_name(f".{dest.stem}.{os.getpid()}.partial{dest.suffix}")


def _holds_something(dest: Path) -> bool:
    """Whether DEST is there and not an empty file: an empty one is filled as a new DEST is
    (staged beside it, then copied in), so that a failed import leaves it empty."""
    try:
        return dest.stat().st_size > 0 or dest.is_dir()
    except OSError:
        return False


def _publish(staged: Path, dest: Path) -> None:
    """Give the staged store DEST's name, unless DEST appeared meanwhile: then copy into it."""
    try:
        os.link(staged, dest)
        return
    except FileExistsError:
        pass
    target = open_store(str(dest), create=True)
    source = open_store(str(staged))
    try:
        events = (
            event
            for session in source.sessions()
            for event in (
                source.read_decoded(session)
                if isinstance(source, IndexedStore)
                else source.read(session)
            )
        )
        with _full_disk(str(dest)):
            copied = target.import_events(events)
    finally:
        close_store(source)
        close_store(target)
    if not isinstance(copied, Success):
        raise CliError(
            f"{dest}: another process made it meanwhile, and what this one wrote cannot join "
            f"it ({copied.failure().message}); nothing was imported"
        )


@contextmanager
def _full_disk(dest: str) -> Iterator[None]:
    """A disk that fills up while writing ``dest``, said in one line."""
    try:
        yield
    except sqlite3.OperationalError as error:
        # SQLite says "full" when it sees the disk fill, "disk I/O error" when a write of
        # its log is refused part way.
        if "full" not in str(error) and "disk I/O" not in str(error):
            raise
        raise CliError(f"{redact(dest)}: the disk is full ({error}); nothing was written") from None
    except PermissionError as error:
        if str(error.filename) not in (dest, str(staged_path(Path(dest)))):
            raise  # another file's (the source's): said as it is
        raise CliError(f"{redact(dest)}: cannot be made there ({error.strerror})") from None
    except OSError as error:
        if error.errno not in _FULL:
            raise
        raise CliError(
            f"{redact(dest)}: the disk is full ({error.strerror}); nothing was written"
        ) from None


def _remove(staged: Path) -> None:
    """The staged file and whatever SQLite left beside it."""
    for side in ("", "-wal", "-shm", "-journal"):
        staged.with_name(staged.name + side).unlink(missing_ok=True)
