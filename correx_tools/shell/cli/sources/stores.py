"""What the command's arguments name: stores to open, files and JSON to read."""

from __future__ import annotations

import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from ...stores.addresses import POSTGRES_SCHEMES, redact_dsn
from ...stores.codec.strict_json import EnvelopeError, loads_strict
from ...stores.jsonl import JsonlEventLog
from ...stores.opening import open_source
from ...stores.port import ClosableStore, EventStore, StoreLayoutError, StoreReadError
from ...transcripts.importing.files import never_read
from ..errors import CliError
from .options import closed_at_the_end
from .transcripts import EVERY_AGENT, agents_found, opened_folders, opened_transcripts

# -- opening sources -----------------------------------------------------------


def open_store(
    source: str,
    *,
    create: bool = False,
    upgrade: bool = False,
    progress: Callable[[int, int], None] | None = None,
) -> EventStore:
    """The store a SOURCE or DEST argument names (see `open_source`), or a one-line error.

    Without ``create`` (or ``upgrade``) the store is opened read-only: reading
    commands write nothing and create nothing (no file, no table); a SOURCE that
    is a transcript or a folder of them is read through its cache
    (`transcript_sources`).
    """
    if not (create or upgrade):
        refuse_never_read(source)
        transcripts = opened_transcripts(source)
        if transcripts is not None:
            return transcripts
    if source.startswith(POSTGRES_SCHEMES):
        quiet_driver()
    try:
        return closed_at_the_end(
            open_source(source, create=create, upgrade=upgrade, progress=progress)
        )
    except StoreLayoutError as error:
        raise CliError(str(error)) from None
    except Exception as error:
        driver = sys.modules.get("psycopg")  # imported only for a PostgreSQL source
        if driver is None or not isinstance(error, driver.Error):
            raise
        # A database that cannot be reached or used: psycopg's own first line says why.
        reason = str(error).strip().splitlines()[0] if str(error).strip() else type(error).__name__
        raise CliError(f"{redact(source)}: cannot use the database: {reason}") from None


def quiet_driver() -> None:
    """The database driver's own warnings kept off the terminal (a connection lost while
    it cleans up, say): the command says what went wrong in its one line."""
    import logging  # noqa: PLC0415 - only for a PostgreSQL store

    driver = logging.getLogger("psycopg")
    if not driver.handlers:
        driver.addHandler(logging.NullHandler())


def open_source_or_agents(source: str | None) -> tuple[EventStore, str]:
    """The store a command that may be given no SOURCE reads, and how it names it: SOURCE's,
    or with none the cache of every agent's folder found on this machine."""
    if source is not None:
        return open_store(source), redact(source)
    return opened_folders([folder.path for folder in agents_found()], EVERY_AGENT), EVERY_AGENT


def refuse_never_read(source: str) -> None:
    """A one-line error for a SOURCE file that is never opened: a pipe (reading it would
    wait for a writer), a device, or a name that is not UTF-8 text (`never_read`)."""
    path = Path(source)
    if source.startswith(POSTGRES_SCHEMES) or path.is_dir():
        return
    passed_by = never_read(path)
    if passed_by is not None:
        where = passed_by.refused[0].source if passed_by.refused else source
        reason = passed_by.refused[0].message if passed_by.refused else passed_by.skipped
        raise CliError(f"{where}: {reason}")


LARGE_LOG_BYTES = 4_000_000
"""A JSONL log past this size takes seconds to read through: the command says so, once."""


def note_unindexed(store: EventStore, source: str) -> None:
    """One line on stderr when ``store`` is a large JSONL log: it keeps no index, so every
    question reads it whole; ``import`` copies it into SQLite once."""
    if not isinstance(store, JsonlEventLog):
        return
    try:
        size = store.path.stat().st_size
    except OSError:
        return
    if size > LARGE_LOG_BYTES:
        copy = Path(source).with_suffix(".sqlite")
        print(
            f"note: {source} is a JSONL log of {size / 1e6:,.0f} MB and "
            "keeps no index, so each question reads it whole; copy it into SQLite once with: "
            f"correx-tools import {source} {copy}",
            file=sys.stderr,
        )


def close_store(store: EventStore) -> None:
    """Close a store that holds a file or a connection open (the others hold nothing)."""
    if isinstance(store, ClosableStore):
        store.close()


@contextmanager
def reading_whole(store: EventStore, where: str, *, after: str = "") -> Iterator[None]:
    """Work that reads ``store`` through, perhaps in worker processes: the store closed at
    the end whatever happens, and a read fault or a lost worker a one-line error naming
    ``where`` (``after`` added to it)."""
    from ...stores.fanout import WorkerLost  # noqa: PLC0415 - only commands that read through

    try:
        yield
    except StoreReadError as error:
        raise CliError(f"{where}: {error.error}{after}") from None
    except WorkerLost as lost:
        raise CliError(f"{where}: {lost}{after}") from None
    finally:
        close_store(store)


def redact(url: str) -> str:
    """A database URL fit to print: its password masked."""
    return redact_dsn(url)


# -- progress ------------------------------------------------------------------


# -- rendering -----------------------------------------------------------------


# -- loading -------------------------------------------------------------------


def read_json(argument: str, what: str) -> Any:
    """Inline JSON, or the JSON file ``argument`` names (``-``: standard input); any problem
    is one clear line."""
    text: str | bytes | None = argument if argument.lstrip().startswith(("{", "[")) else None
    if text is None:
        text = read_file(argument)
    try:
        return loads_strict(text)
    except EnvelopeError as error:
        where = "standard input" if argument == "-" else argument
        raise CliError(f"{where}: {what}: {error}") from None


def read_file(argument: str) -> bytes:
    """The bytes of the file ``argument`` names (``-``: standard input); anything but a
    regular file (missing, a folder, a FIFO) is a CliError."""
    if argument == "-":
        return sys.stdin.buffer.read()
    from ...option_files import OptionFileError, read_option_file  # noqa: PLC0415 - on use

    try:
        return read_option_file(argument)
    except OptionFileError as error:
        raise CliError(str(error)) from None
