"""What one agent's transcript format is: one frozen record, which the machinery reads.

Each package under `agents` exports one `AgentFormat`, and `agents.REGISTRY`
lists them. Recognising and reading a file (`recognising`), naming its
session, reading the file kept beside it, a cache's stamp of it
(`cache.manifest`), the agents' home folders (`homes`) and the command's
sources loop over the records, and name no agent: a new format is a package
and a line in the registry.

A format is written in one or more shapes: lines of JSON, one JSON document,
Markdown, a SQLite database. A file's shape is told first (one JSON document,
lines of JSON, Markdown; a database by its first bytes); then the formats of
that shape are tried on it in ascending `Shape.rank`, the more particular
first: an order of its own for each shape, since a file that two tests would
take must go to the same format as before.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any, final

from .model import Transcript


@final
@dataclass(frozen=True, slots=True)
class Later:
    """A function of an agent's package, imported when first called: ``name`` in
    ``module`` (a full module name). A record names its readers so (``read``, ``add``,
    ``placed``), since recognising a file, or a look that reads none, must import no
    reader; a call passes its arguments on and returns what the function returns."""

    module: str
    name: str

    def __call__(self, *args: Any) -> Any:
        """What the function returns, given ``args``."""
        return getattr(importlib.import_module(self.module), self.name)(*args)


@final
@dataclass(frozen=True, slots=True)
class Shape:
    """One way a format is written: whether a file's parsed content is one of it
    (``looks_like``, given the document, the first records of a JSON Lines file, or the
    Markdown text) and how it is read (``read(content, name)``, ``name`` being the
    session's name of last resort). ``rank`` orders the formats tried on one shape,
    lowest first. ``looks_like`` is light; ``read`` (a `Later`) imports its reader when first
    called, so that recognising a file, or a look that reads none, imports no reader."""

    rank: int
    looks_like: Callable[[Any], bool]
    read: Callable[[Any, str], Transcript]


@final
@dataclass(frozen=True, slots=True)
class Database:
    """A format kept as a SQLite database of many sessions, read from its path (never its
    bytes): the tables that tell a SQLite file is one, its reader (every session, or the
    one named), and the suffix of its files (their write-ahead log is read with them, and
    a cache's stamp of one covers its log too)."""

    tables: frozenset[str]
    read: Callable[[Path, str | None], list[Transcript]]
    suffix: str = ".db"
    log: str = "-wal"


@final
@dataclass(frozen=True, slots=True)
class Companion:
    """A file kept beside a format's transcript and read with it: the transcript's file
    name, the companion's, why it is read (the end of the message that refuses the
    companion alone), and what it adds to the transcript read beside it."""

    transcript: str
    name: str
    why: str
    add: Callable[[Transcript, bytes], Transcript]


@final
@dataclass(frozen=True, slots=True)
class Places:
    """Where a user's agents write, as this machine says: the home folder, the
    environment, the XDG data and config folders, and each editor's extension storage."""

    home: Path
    environ: Mapping[str, str]
    data: Path
    config: Path
    editors: tuple[Path, ...]


@final
@dataclass(frozen=True, slots=True)
class Home:
    """A folder where an agent keeps its sessions: the agent's name and the folder, found
    from the user's `Places`. ``rank`` orders it among every agent's homes."""

    agent: str
    rank: int
    folder: Callable[[Places], Path]


@final
@dataclass(frozen=True, slots=True)
class ExtensionHome:
    """A folder an editor extension keeps its sessions in, inside each editor's extension
    storage (`Places.editors`). ``rank`` orders it among the extensions' homes."""

    agent: str
    rank: int
    folder: Callable[[Path], Path]


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class AgentFormat:
    """One transcript format, whole: everything the machinery would otherwise write as a
    special case of it.

    ``name`` is the format's name (``--format``, a session's description);
    ``expected`` what a file of it looks like, for the message that says a file is
    not one; ``called`` what one file of it is called, where a message names it
    alone. Its shapes: ``lines``, ``document``, ``markdown``, ``database``.
    """

    name: str
    expected: str
    called: str = ""
    lines: Shape | None = None
    document: Shape | None = None
    markdown: Shape | None = None
    database: Database | None = None
    companion: Companion | None = None
    session_file: str | None = None
    """The name its file has for every session (the folder it is in names the session)."""
    placed: Callable[[Transcript, Path], Transcript] | None = None
    """What a file's place says of its session, beside what the file says (a folder
    named by the session's id, or by the session that started it)."""
    homes: tuple[Home, ...] = ()
    extension_homes: tuple[ExtensionHome, ...] = ()
