"""Importing a transcript: read it, recognise its format, turn its calls into the
lifecycle's events (`staging`), check them, and write them as one session, all or nothing.

A session the store holds already is compared with what the file gives now:
the same events, and nothing is written; the events it holds followed by
more (a live file that grew), and only the new ones are written, after the
last stored sequence; anything else (a file rewritten in place, another
session of the same name) is an error, and nothing is written.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import final

from returns.result import Failure, Result, Success

from ....core.lifecycle.conversation import conversation_of
from ....core.lifecycle.events import StoredEvent
from ....core.lifecycle.status import ToolInvocationStatus
from ....core.replay.recorded import receipt_exited_nonzero
from ....core.tools.ids import SessionId
from ...stores.port import EventStore, StoreReadError, session_events, store_name
from ..errors import TranscriptError, Unreadable
from ..model import Transcript
from ..recognising import default_name, is_database, load, parse
from .events import transcript_events
from .options import ImportOptions


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class TranscriptImport:
    """What an import did: the session, its calls by final status, and the events written.

    ``events`` is 0 and ``already_imported`` true when the store held exactly
    this session already (importing the same transcript twice writes nothing);
    ``grown`` is true when the store held the session's first events and this
    import added the rest (a live transcript imported again). A transcript that
    holds no call yet and records no time writes nothing (``events`` 0, neither
    ``already_imported`` nor ``grown``): there is no session to show yet. ``incomplete_tail``
    names a last line still being written, left out; ``skipped`` the damaged
    lines a lenient import left out, each with what is wrong with it.
    ``exited_nonzero`` counts the completed calls whose stated exit code is not 0.
    """

    session_id: SessionId
    format: str
    invocations: int
    events: int
    statuses: Mapping[str, int]
    in_flight: int
    already_imported: bool
    grown: bool = False
    incomplete_tail: str = ""
    skipped: tuple[tuple[str, str], ...] = ()
    exited_nonzero: int = 0


Progress = Callable[[int, int], None]
DEFAULT = ImportOptions()
"""The options of an import that chooses none."""


def import_transcript(
    path: str | os.PathLike[str],
    store: EventStore,
    options: ImportOptions = DEFAULT,
    *,
    session: str | None = None,
    progress: Progress | None = None,
) -> Result[TranscriptImport, TranscriptError]:
    """Import the transcript at ``path`` into ``store`` as one session, all or nothing.

    ``options`` are the import's choices (`ImportOptions`: the format, or ``"auto"``
    to recognise it from the content; the tiering; lenient; the conversation or
    not); ``session`` names the session (by default the transcript's own session
    id, or the file's name) — for a file of many sessions (Goose's ``sessions.db``)
    it chooses the one to import, by its own id; ``progress(done, total)`` is told
    how many calls are converted.
    """
    results = import_transcripts(
        path, store, options, session=session, progress=progress, single=True
    )
    return results[0]


def import_transcripts(
    path: str | os.PathLike[str],
    store: EventStore,
    options: ImportOptions = DEFAULT,
    *,
    session: str | None = None,
    progress: Progress | None = None,
    single: bool = False,
) -> list[Result[TranscriptImport, TranscriptError]]:
    """Import every session of the file at ``path``, each all or nothing (one for most
    formats; each of a Goose database's). A file that cannot be read is one failure.
    ``single`` asks for exactly one session: a file of many is then an error."""
    source, file = str(path), Path(path)
    try:
        several = is_database(file)
        transcripts = load(file, options.format, default_name(file), lenient=options.lenient,
                           session=session if several else None)  # fmt: skip
        if single and len(transcripts) != 1:
            ids = ", ".join(t.session for t in transcripts[:5]) or "none"
            raise Unreadable("", f"it holds {len(transcripts)} sessions ({ids}): choose one "
                             "(--session ID), or import them all")  # fmt: skip
    except Unreadable as error:
        return [Failure(TranscriptError(source=source, where=error.where, message=error.message))]
    except OSError as error:
        message = error.strerror or str(error)
        return [Failure(TranscriptError(source=source, where="", message=message))]
    name = None if several else session
    return [write(t, source, store, options, session=name, progress=progress) for t in transcripts]


def import_bytes(
    data: bytes,
    source: str,
    store: EventStore,
    options: ImportOptions = DEFAULT,
    *,
    name: str,
    session: str | None = None,
    progress: Progress | None = None,
) -> Result[TranscriptImport, TranscriptError]:
    """`import_transcript` of bytes already read (standard input, say); ``source``
    names them in messages and ``name`` is the session's name of last resort."""
    try:
        transcript = parse(data, options.format, name, lenient=options.lenient)
    except Unreadable as error:
        return Failure(TranscriptError(source=source, where=error.where, message=error.message))
    return write(transcript, source, store, options, session=session, progress=progress)


def write(
    transcript: Transcript,
    source: str,
    store: EventStore,
    options: ImportOptions = DEFAULT,
    *,
    session: str | None = None,
    progress: Progress | None = None,
) -> Result[TranscriptImport, TranscriptError]:
    """Write a transcript read already as a session (``session`` names it), all or nothing;
    what the store holds of it already is not written again (see the module docstring).
    Of the ``options``, only the tiering and the conversation matter here (the file is
    read)."""
    try:
        session_id = SessionId(session or transcript.session)
        if not session_id:
            raise Unreadable("", "the session name is empty")
        events, state = transcript_events(transcript, session_id, options, progress)
        held = held_of(store, session_id, events)
        if held is None:
            raise Unreadable("", _not_held(store, session_id, events))
        if held < len(events):
            written = store.import_events(events[held:])
            if not isinstance(written, Success):
                raise Unreadable(
                    "", f"{store_name(store)} refused the session: {written.failure()}"
                )
    except Unreadable as error:
        return Failure(TranscriptError(source=source, where=error.where, message=error.message))
    except StoreReadError as error:
        return Failure(
            TranscriptError(source=source, where="", message=f"reading the store: {error}")
        )
    statuses = {status.value: 0 for status in ToolInvocationStatus}
    exited_nonzero = 0
    for record in state.records():
        statuses[record.status.value] += 1
        if record.status is ToolInvocationStatus.COMPLETED:
            exited_nonzero += receipt_exited_nonzero(record.receipt)
    return Success(
        TranscriptImport(
            session_id=session_id,
            format=transcript.format,
            invocations=len(state),
            events=len(events) - held,
            statuses=statuses,
            in_flight=statuses["requested"] + statuses["started"],
            already_imported=0 < held == len(events),
            grown=0 < held < len(events),
            incomplete_tail=transcript.incomplete_tail,
            skipped=transcript.skipped,
            exited_nonzero=exited_nonzero,
        )
    )


def held_of(store: EventStore, session_id: SessionId, events: Sequence[StoredEvent]) -> int | None:
    """How many of ``events`` the store holds already, as the session's first events (0: it
    holds none of the session); ``None`` when it holds others (a file rewritten, another
    session of the same name). The one answer both an import (which then refuses) and a
    cache (which then imports the session again whole) go by."""
    held = 0
    with session_events(store, session_id) as stored:
        for event in stored:
            if held == len(events) or event != events[held]:
                return None
            held += 1
    return held


def _not_held(store: EventStore, session_id: SessionId, events: Sequence[StoredEvent]) -> str:
    """Why the session the store holds is not the one the transcript gives, and what to do.

    Imported the other way: one side holds a conversation and the other none, and their
    other events agree (one may have grown). A chat rewritten at a prompt is a rewritten
    chat; another session under the same name is another session.
    """
    with session_events(store, session_id) as stored:
        differs = next(
            event.sequence
            for number, event in enumerate(stored)
            if number == len(events) or event != events[number]
        )
    held_talk, held_rest = _parted(stored.event for stored in store.read(session_id))
    given_talk, given_rest = _parted(stored.event for stored in events)
    shorter = min(len(held_rest), len(given_rest))
    if held_rest[:shorter] != given_rest[:shorter]:
        held_talk = given_talk  # not the same calls: the option is not the reason
    return _different(session_id, differs, held_talk, given_talk)


def _parted(events: Iterable[object]) -> tuple[bool, list[object]]:
    """Whether ``events`` hold a conversation, and their other events."""
    talk, rest = False, []
    for event in events:
        if conversation_of(event) is None:
            rest.append(event)
        else:
            talk = True
    return talk, rest


def _different(session: SessionId, sequence: int, talk_held: bool, talk_given: bool) -> str:
    """Why a session the store holds is not the one the transcript gives, and what to do."""
    if talk_given and not talk_held:
        return (
            f"the store holds session {session!r} without its conversation (imported by an "
            "earlier release, or with --no-conversation): import it again with "
            "--no-conversation, or into another store"
        )
    if talk_held and not talk_given:
        return (
            f"the store holds session {session!r} with its conversation: import it again "
            "without --no-conversation, or into another store"
        )
    return (
        f"the store holds a different session named {session!r} (from sequence "
        f"{sequence} on, it is not what this transcript gives: the transcript "
        "was rewritten, or is another one); import the file on its own under another "
        "session name (import-transcript FILE DEST --session NAME), or into another "
        "store"
    )
