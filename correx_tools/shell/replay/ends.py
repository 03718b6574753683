"""A session's first and last times: those of its first and last events, read alone."""

from __future__ import annotations

from collections.abc import Mapping

from ...core.lifecycle.events import StoredEvent
from ...core.tools.ids import SessionId
from ..stores.codec.envelope import iso_time
from ..stores.port import EventStore, first_event


def session_ends(
    store: EventStore, session: SessionId, last: int
) -> tuple[StoredEvent | None, StoredEvent | None]:
    """The session's first and last events (``last``: its last sequence); each read alone,
    so a session of any size costs two reads."""
    if last == 0:
        return None, None
    return _one(store, session, 0), _one(store, session, last - 1)


def session_times(
    store: EventStore, session: SessionId, last: int, transcript: Mapping[str, object] | None
) -> tuple[str | None, str | None]:
    """When the session's first and last events were recorded (as the stores write a time);
    ``None`` for both where its transcript records no time (its steps' stand-in times keep
    their order only)."""
    if transcript is not None and transcript.get("times_recorded") is False:
        return None, None
    first, final = session_ends(store, session, last)
    return (None if first is None else iso_time(first.recorded_at),
            None if final is None else iso_time(final.recorded_at))  # fmt: skip


def _one(store: EventStore, session: SessionId, after: int) -> StoredEvent | None:
    return first_event(store, session, after=after)
