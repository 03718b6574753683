"""One file read for the cache: each session it gives, or why it gives none.

`read_file` reads it in the look's own process, each session as its events;
`prepared_files` reads files in a worker process (`filling`), each session's
events made into the rows its store writes (`stores.sql.prepared`), so that
the look's process has only to write them. Either way, what a file gives is
decided here, once: a file no reader recognises is skipped, one that cannot be
read is refused, and a transcript whose events cannot be made gives its
reason instead of its session; one with no call and no time yet gives none.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path
from typing import final

from ....core.lifecycle.events import StoredEvent
from ....core.tools.ids import SessionId
from ...stores.sql.prepared import PreparedSession, Preparer
from ..errors import Unreadable, Unrecognised
from ..importing.events import transcript_events
from ..importing.options import ImportOptions
from ..recognising import default_name, load


@final
@dataclass(frozen=True, slots=True)
class SessionRead:
    """One session a file gives: its events, or its rows made ready to write
    (``prepared``: the events are then not kept), or why its events could not be made
    (``reason``)."""

    session: str
    events: list[StoredEvent] | None = None
    prepared: PreparedSession | None = None
    reason: str = ""


@final
@dataclass(frozen=True, slots=True)
class FileRead:
    """What reading one file gave: its sessions in the file's order; or ``skipped``, why
    it is no transcript; or ``refused``, why a transcript could not be read."""

    sessions: tuple[SessionRead, ...] = ()
    skipped: str = ""
    refused: str = ""


def read_file(path: Path, name: str, options: ImportOptions) -> FileRead:
    """Every session of the file at ``path``, each as its events (``name``: the session's
    name where the transcript records none)."""
    try:
        transcripts = load(path, "auto", name)  # read from the file: its long strings cut out
    except Unrecognised as error:
        return FileRead(skipped=error.short)
    except Unreadable as error:
        return FileRead(refused=_reason(error))
    except (OSError, RecursionError, MemoryError) as error:
        return FileRead(
            refused=f"cannot read it ({error.strerror or error})"
            if isinstance(error, OSError)
            else "too large or too deeply nested to read"
        )
    sessions: list[SessionRead] = []
    for transcript in transcripts:
        session = transcript.session
        try:
            events, _ = transcript_events(transcript, SessionId(session), options)
        except Unreadable as error:
            sessions.append(SessionRead(session, reason=_reason(error)))
            continue
        if events:  # none: no call yet, and no time, so no session until the file says more
            sessions.append(SessionRead(session, events=events))
    return FileRead(tuple(sessions))


def _reason(error: Unreadable) -> str:
    return f"{error.where}: {error.message}" if error.where else error.message


Task = tuple[list[tuple[str, str]], ImportOptions, Preparer]
"""What a worker process is given: files (each with the root it was found under, which
names a session whose transcript records no id: `default_name`), the import's options,
and how the store writes a new session's rows."""


def prepared_files(task: Task) -> list[FileRead]:
    """Each file of ``task`` read (`read_file`), its sessions' rows made ready to write; a
    session whose rows cannot be made keeps its events, for the writer to refuse them as it
    refuses any others (in a worker process)."""
    files, options, preparer = task
    done = []
    for path, root in files:
        read = read_file(Path(path), default_name(Path(path), Path(root)), options)
        sessions = []
        for found in read.sessions:
            made = None if found.events is None else preparer.prepare(found.session, found.events)
            if isinstance(made, PreparedSession):
                found = SessionRead(found.session, prepared=made)  # noqa: PLW2901 - its rows
            sessions.append(found)
        done.append(FileRead(tuple(sessions), read.skipped, read.refused))
    return done
