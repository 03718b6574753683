"""What a running command chose about its SOURCE (``--cache``, ``--no-cache``,
``--no-conversation``) and what it opened, for the code that opens sources to read.

`source_scope` holds them while the command runs, then closes every store it
opened and removes a temporary cache. Light on purpose: `main` enters the scope
for every command before knowing whether the command opens anything.
"""

from __future__ import annotations

import argparse
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from ...stores.port import EventStore


@dataclass(slots=True)
class SourceOptions:
    """The command's ``--cache``, ``--no-cache``, ``--no-conversation``; what it opened."""

    command: str = "correx-tools"
    cache: str | None = None
    no_cache: bool = False
    conversation: bool = True
    opened: list[EventStore] = field(default_factory=list)
    temporary: list[Path] = field(default_factory=list)
    refused: int = 0
    """Files of the transcripts opened that could not be read (each told on stderr)."""
    not_shown: list[tuple[str, str]] = field(default_factory=list)
    """Every file of the transcripts opened that is not shown as it is, with why, whichever
    look found it (`TranscriptCache.not_shown`)."""
    files: dict[str, str] | None = None
    """Where each session of the transcripts opened was read from (its file's absolute
    path), for a command that asked for it (``{}``) before it opened them."""


_OPTIONS: ContextVar[SourceOptions | None] = ContextVar("correx_source_options", default=None)


@contextmanager
def source_scope(args: argparse.Namespace) -> Iterator[SourceOptions]:
    """The command's cache options while it runs; what it opened is closed (and a temporary
    cache removed) when it ends."""
    options = SourceOptions(
        command=f"correx-tools {getattr(args, 'command', '')}".rstrip(),
        cache=getattr(args, "cache", None),
        no_cache=bool(getattr(args, "no_cache", False)),
        conversation=not getattr(args, "no_conversation", False),
    )
    token = _OPTIONS.set(options)
    try:
        yield options
    finally:
        _OPTIONS.reset(token)
        for store in options.opened:
            close = getattr(store, "close", None)
            if close is not None:
                close()
        if options.temporary:
            import shutil  # noqa: PLC0415 - only a command that made a temporary cache

            for folder in options.temporary:
                shutil.rmtree(folder, ignore_errors=True)


def current_options() -> SourceOptions:
    """The running command's options (defaults outside a command)."""
    found = _OPTIONS.get()
    return found if found is not None else SourceOptions()


def closed_at_the_end(store: EventStore) -> EventStore:
    """``store``, closed when the command ends (`source_scope`): a command run in a process
    that goes on (a script's, a test's) leaves no connection open behind it."""
    current_options().opened.append(store)
    return store


def refused_files() -> int:
    """How many files of the transcripts this command opened could not be read."""
    return current_options().refused


def files_not_shown() -> list[tuple[str, str]]:
    """Every file of the transcripts this command opened that is not shown as it is, with
    why (a transcript that could not be read, a session another file gave first with other
    events, a folder that could not be read)."""
    return current_options().not_shown


def command_name() -> str:
    """The running command's name, as notes begin."""
    return current_options().command
