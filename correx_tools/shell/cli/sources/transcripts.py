"""A transcript, or a folder of them, as a SOURCE: read through a cache of transcripts.

Wherever a command takes SOURCE, a file an agent wrote (any format
``import-transcript`` reads) or a folder of them is read as a store: the
files are brought into a cache (`correx_tools.shell.transcripts.cache`), a
SQLite store in the user's cache folder, and the command answers from it.
``--cache PATH`` chooses the cache, ``--no-cache`` makes a temporary one. A
cache that cannot be written (a read-only disk) gives way to a temporary one,
with a note; a damaged cache of our own is made again (it is derived data).

What a SOURCE is, is told by its content: a folder is a folder of
transcripts; a SQLite file with an ``events`` table, a ``.jsonl`` file whose
first line is an event envelope (or that is empty) and a ``postgresql://``
URL are stores (`opening.open_source` opens them); any other file is read as
a transcript, and one that no reader recognises is one line saying what it
looks like and what was expected.
"""

from __future__ import annotations

import os
import sqlite3
import sys
import tempfile
from collections.abc import Sequence
from pathlib import Path

import re2

from ...stores.addresses import POSTGRES_SCHEMES
from ...stores.port import EventStore, StoreLayoutError
from ...stores.sqlite import SQLiteEventStore
from ...transcripts.cache.cache import CacheError, TranscriptCache
from ...transcripts.cache.look import Look, Watcher
from ...transcripts.common.lines import LENIENT_HINT
from ...transcripts.homes import AgentFolder, agent_folders, candidate_folders
from ...transcripts.importing.files import transcript_files
from ...transcripts.recognising import FORMATS, SQLITE_HEADER, database_format
from ..errors import CliError
from ..output.render import in_line
from ..output.terminal import Progress
from .empty_folder import why_no_session
from .options import SourceOptions, closed_at_the_end, current_options

SHOWN_AT_MOST = 10
"""Skipped or refused files listed one by one in a look; the rest are counted."""
ANNOUNCE_FILES = 20
"""A look that reads at least this many files says first what it is doing."""
_ENVELOPE = re2.compile(rb'\A\s*\{\s*"crc32"\s*:')


def as_source(reason: str) -> str:
    """A reader's reason as a command that opens transcripts as SOURCE says it: such a
    command has no ``--lenient`` of its own, ``import-transcript`` has."""
    return reason.replace(LENIENT_HINT, _SOURCE_LENIENT_HINT)


_SOURCE_LENIENT_HINT = (
    "; correx-tools import-transcript --lenient imports its other lines into a store"
)


# -- what a SOURCE is ------------------------------------------------------------------------


def is_transcript_source(source: str) -> bool:
    """Whether SOURCE names transcripts (a folder, or a file no store is) rather than a store."""
    if source.startswith(POSTGRES_SCHEMES):
        return False
    path = Path(source)
    if path.is_dir():
        return True
    try:
        with path.open("rb") as file:
            head = file.read(1 << 12)
    except OSError:
        return False  # missing or unreadable: the store's opener says which, in one line
    if not head.strip():
        # Empty: an empty log or SQLite file, for the store's opener to say. Blank lines
        # alone no store writes: the transcripts' reader says what the file holds.
        return bool(head) and len(head) < (1 << 12)
    if head.startswith(SQLITE_HEADER):
        # A format's database (Goose's sessions.db) is a transcript; any other SQLite file is
        # for the store's opener to take, or to say in one line what it holds instead.
        tables = _tables(path)
        return "events" not in tables and database_format(tables) is not None
    return not _ENVELOPE.match(head)


def _tables(path: Path) -> set[str]:
    """The tables of a SQLite file, read without writing anything beside it (none when it
    cannot be read: the store's opener says why)."""
    try:
        connection = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro&immutable=1", uri=True)
    except sqlite3.Error:
        return set()
    try:
        listed = connection.execute("SELECT name FROM sqlite_master WHERE type = 'table'")
        return {name for (name,) in listed}
    except sqlite3.DatabaseError:
        return set()
    finally:
        connection.close()


def expected() -> str:
    """What a SOURCE may be, for a message that says what it is not."""
    return (
        "expected a SQLite file, a .jsonl event log, a postgresql:// URL, or a transcript "
        f"({', '.join(FORMATS)}) or a folder of them"
    )


# -- the cache -------------------------------------------------------------------------------


def cache_home() -> Path:
    """The user's cache folder (``XDG_CACHE_HOME``, or the system's own place for caches)."""
    if os.environ.get("XDG_CACHE_HOME"):
        return Path(os.environ["XDG_CACHE_HOME"])
    if sys.platform == "darwin":
        return Path.home() / "Library" / "Caches"
    if sys.platform == "win32" and os.environ.get("LOCALAPPDATA"):
        return Path(os.environ["LOCALAPPDATA"])
    return Path.home() / ".cache"


def default_cache(roots: Sequence[Path]) -> Path:
    """The cache of these roots in the user's cache folder: one file per set of roots."""
    import hashlib  # noqa: PLC0415 - not loaded when --cache names the cache (OpenSSL's is slow)

    absolute = sorted(os.path.abspath(root) for root in roots)
    digest = hashlib.sha256("\n".join(absolute).encode("utf-8", "surrogateescape")).hexdigest()
    stem = re2.sub(r"[^A-Za-z0-9._-]+", "-", Path(absolute[0]).name or "root").strip("-")[:40]
    return cache_home() / "correx-tools" / "sources" / f"{stem or 'root'}-{digest[:16]}.sqlite"


def open_cache(roots: Sequence[Path], label: str) -> TranscriptCache:
    """The cache of ``roots`` the command's options choose, ready to look (see the module
    docstring for the fallbacks); ``label`` names the SOURCE in notes."""
    options = current_options()
    if options.no_cache:
        return _temporary(roots, options)
    chosen = Path(options.cache) if options.cache else default_cache(roots)
    try:
        chosen.parent.mkdir(parents=True, exist_ok=True)
        return _writable(TranscriptCache(chosen, roots, conversation=options.conversation))
    except CacheError as error:
        if options.cache:
            raise CliError(str(error)) from None
        # Ours, and damaged (what else could be at that path): it is derived data.
        return _again(chosen, roots, "it is not a cache any more", options)
    except StoreLayoutError:
        # A cache an older release wrote: derived data, made again rather than upgraded.
        return _again(chosen, roots, "it was written by an older release", options)
    except sqlite3.DatabaseError as error:
        if options.cache is None and not isinstance(error, sqlite3.OperationalError):
            return _again(chosen, roots, _why(error), options)
        reason = _why(error)
    except OSError as error:
        reason = _why(error)
    note(
        f"cannot use the cache {chosen} ({reason}); using a temporary one, so {label} is read "
        "whole each time"
    )
    return _temporary(roots, options)


def _writable(cache: TranscriptCache) -> TranscriptCache:
    try:
        cache.check_writable()
    except BaseException:
        cache.close()
        raise
    return cache


def _again(
    chosen: Path, roots: Sequence[Path], reason: str, options: SourceOptions
) -> TranscriptCache:
    """A damaged cache of our own is made again: it is derived data."""
    note(f"the cache {chosen} could not be read ({reason}); making it again")
    for end in ("", "-wal", "-shm", "-journal"):
        chosen.with_name(chosen.name + end).unlink(missing_ok=True)
    try:
        return _writable(TranscriptCache(chosen, roots, conversation=options.conversation))
    except (OSError, sqlite3.Error, CacheError):
        return _temporary(roots, options)


def _temporary(roots: Sequence[Path], options: SourceOptions) -> TranscriptCache:
    folder = Path(tempfile.mkdtemp(prefix="correx-cache-"))
    options.temporary.append(folder)
    return TranscriptCache(folder / "cache.sqlite", roots, conversation=options.conversation)


def _why(error: BaseException) -> str:
    if isinstance(error, OSError):
        return error.strerror or str(error)
    return str(error)


def note(message: str, command: str | None = None) -> None:
    """One line on stderr, named by the command (``command``: from a thread of the command's,
    which does not see its options). A file's name or a transcript's text in it cannot steer
    the terminal: its control characters are written as ``[U+XXXX]``, as the tables do."""
    print(
        f"{command or current_options().command}: {in_line(message)}", file=sys.stderr, flush=True
    )


class TerminalWatcher(Watcher):
    """What a look shows: a first line when it reads many files, and a bar on a terminal."""

    def __init__(self, label: str, cache: Path) -> None:
        self.label, self.cache = label, cache
        self.bar: Progress | None = None

    def reading(self, files: int, size: int) -> None:
        if files >= ANNOUNCE_FILES:
            # A temporary cache (--no-cache, or one that could not be used) is gone when the
            # command ends: no later open reads it.
            temporary = self.cache.parent in current_options().temporary
            kept = (
                "a temporary cache, gone when the command ends (each open reads them whole)"
                if temporary
                else f"the cache {self.cache}; later opens read only what changed"
            )
            note(f"reading {files:,} transcript files ({size / 1e6:,.1f} MB) under {self.label} "
                 f"into {kept}")  # fmt: skip
        if files:
            self.bar = Progress(f"caching {files:,} files (bytes)", size, sys.stderr)
            self.bar.__enter__()

    def done(self, size: int) -> None:
        if self.bar is not None:
            self.bar.advance(size)

    def close(self) -> None:
        """End the bar, if one was drawn."""
        if self.bar is not None:
            self.bar.close()


def tell(look: Look, command: str | None = None) -> None:
    """What a look found that the user should know, once: files skipped or refused, each
    with the reason (the first few, then a count)."""
    for kind, found in (("skipped", look.skipped), ("refused", look.refused)):
        for file, reason in found[:SHOWN_AT_MOST]:
            note(f"{kind} {file}: {as_source(reason)}", command)
        if len(found) > SHOWN_AT_MOST:
            note(f"... and {len(found) - SHOWN_AT_MOST:,} more files {kind}", command)


def opened_transcripts(source: str) -> EventStore | None:
    """The store SOURCE's transcripts are read from (its cache, brought in step and opened
    read-only); ``None`` when SOURCE names a store."""
    if not is_transcript_source(source):
        return None
    return opened_folders([Path(source)], source)


def opened_folders(roots: Sequence[Path], label: str) -> EventStore:
    """The store the transcripts under ``roots`` are read from: their cache, brought in step
    and opened read-only (``label`` names them in notes)."""
    cache = open_cache(roots, label)
    options = current_options()
    try:
        look = checked_look(cache, label)
        options.refused += len(look.refused)
        options.not_shown += cache.not_shown(look)
        if options.files is not None:
            for found in cache.listing()[0]:
                row = cache.file_row(Path(found.path))
                if row is not None:
                    options.files.update(dict.fromkeys(row.sessions, row.path))
    finally:
        cache.close()
    return closed_at_the_end(SQLiteEventStore(cache.path, read_only=True))


EVERY_AGENT = "the agents' folders"
"""How notes name every agent's folder found, the SOURCE of a command given none."""


def agents_found() -> list[AgentFolder]:
    """Every agent's folder on this machine, each said in one line; none is an error."""
    folders = agent_folders()
    if not folders:
        looked = ", ".join(str(folder.path) for folder in candidate_folders()[:4])
        raise CliError(
            f"no SOURCE given, and no agent's folder found on this machine (looked in {looked}, "
            "...); give a store, a transcript or a folder of them"
        )
    for folder in folders:
        files, _ = transcript_files(folder.path)
        note(f"{folder.agent}: {folder.path} ({len(files):,} files)")
    return folders


def checked_look(cache: TranscriptCache, label: str) -> Look:
    """The first look at the cache's files, showing what it does; a single file that is no
    transcript, or cannot be read, is a one-line error."""
    found = look_once(cache, label)
    if len(cache.roots) == 1 and not cache.roots[0].is_dir():
        source = str(cache.roots[0])
        row = cache.file_row(cache.roots[0])
        if row is not None and row.state == "skipped":
            _drop(cache)
            raise CliError(f"{source}: neither an event store nor a transcript of a known "
                           f"format ({_shape(row.reason)}); {expected()}")  # fmt: skip
        if row is not None and row.state == "refused" and not row.sessions:
            _drop(cache)
            raise CliError(f"{source}: {as_source(row.reason)}")
    elif all(root.is_dir() for root in cache.roots) and not cache.holds_sessions():
        _drop(cache)
        if not found.files and found.refused:  # the folder could not be read: that says more
            folder, reason = found.refused[0]
            raise CliError(f"{folder}: {reason}")
        raise CliError(f"{label}: {as_source(why_no_session(found))}")
    tell(found)
    return found


def _drop(cache: TranscriptCache) -> None:
    """Remove a cache made for a file that gave nothing (it would hold nothing, ever)."""
    if not current_options().cache and not cache.holds_sessions():
        cache.close()
        for end in ("", "-wal", "-shm", "-journal", ".lock"):
            cache.path.with_name(cache.path.name + end).unlink(missing_ok=True)


def followed_cache(source: str | None) -> tuple[TranscriptCache, str]:
    """The cache of a transcript SOURCE a command follows (``None``: every agent's folder
    found), after its first look (`checked_look`), and how notes name it; closed again when
    that look refuses it."""
    if source is None:
        roots, label = [folder.path for folder in agents_found()], EVERY_AGENT
    else:
        roots, label = [Path(source)], source
    cache = open_cache(roots, label)
    try:
        checked_look(cache, label)
    except BaseException:
        cache.close()
        raise
    return cache, label


def look_once(cache: TranscriptCache, label: str) -> Look:
    """One look at the files, showing what it does on a terminal."""
    watcher = TerminalWatcher(label, cache.path)
    try:
        return cache.look(watcher)
    finally:
        watcher.close()


def _shape(reason: str) -> str:
    """``what it looks like``, from a reader's ``not a transcript of a known format (...)``."""
    inside = re2.search(r"\((.*)\)\z", reason)
    return inside.group(1) if inside else reason
