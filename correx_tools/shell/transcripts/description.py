"""What an imported session says about itself: written as its first event.

An imported session begins with one event of the type `DESCRIBED` (version
1): the transcript's format, and what the transcript says of the session —
the agent's own session id, when it started, the working directory, a title;
and ``"times": "none"`` when the transcript records no time for any step (the
stored times then only keep the steps in order: no view should show them as
times). A description without ``times`` (every one an earlier release wrote)
is of a transcript that records its times. It is not a tool event: every store
keeps it as an ``OpaqueEvent``, the lifecycle passes over it, and `described`
reads it back for ``sessions``.
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, final

from ...core.lifecycle.events import OpaqueEvent, StoredEvent
from ...core.tools.ids import SessionId
from ..stores.codec.envelope import format_timestamp
from ..stores.port import EventStore, session_events
from .common.values import utc_time
from .errors import Unreadable
from .model import About

DESCRIBED = "correx.session.described"
"""The type tag of the event that describes an imported session."""
VERSION = 1
NO_TIMES = "none"
"""The description's ``times`` when the transcript records no time for any step."""


def description_event(format: str, about: About, *, times_recorded: bool = True) -> OpaqueEvent:
    """The event that describes a session imported from a ``format`` transcript
    (``times_recorded`` false: one that records no time for any step)."""
    data = {
        "format": format,
        "agent_session_id": about.agent_session_id,
        "started_at": None if about.started_at is None else about.started_at.isoformat(),
        "cwd": about.cwd,
        "title": about.title,
        "parent_session_id": about.parent_session,
        "times": None if times_recorded else NO_TIMES,
    }
    return OpaqueEvent(
        type=DESCRIBED,
        version=VERSION,
        data={key: value for key, value in data.items() if value},
    )


@final
@dataclass(frozen=True, slots=True)
class Described:
    """A session's description as read back: its source format and what it said.

    ``times_recorded`` is false when the transcript records no time for any step: the
    session's stored times only keep its order, and are not to be shown as times.
    """

    format: str
    about: About
    times_recorded: bool = True


def description_json(found: Described | None) -> dict[str, str | bool | None] | None:
    """A session's description as ``sessions --json`` shows it (``None``: not imported)."""
    if found is None:
        return None
    about = found.about
    return {
        "format": found.format,
        "agent_session_id": about.agent_session_id,
        "started_at": None if about.started_at is None else format_timestamp(about.started_at),
        "cwd": about.cwd,
        "title": about.title,
        "times_recorded": found.times_recorded,
    }


def session_description(store: EventStore, session: SessionId) -> Described | None:
    """The description ``session`` begins with in ``store``, if it was imported; only its
    first event is read."""
    with session_events(store, session) as events:
        return described(events)


def described(events: Iterable[StoredEvent]) -> Described | None:
    """The description a session begins with, if it is an imported one (only the first
    event is read)."""
    for stored in events:
        event = stored.event
        if (
            not isinstance(event, OpaqueEvent)
            or event.type != DESCRIBED
            or event.version != VERSION
        ):
            return None
        data = event.data

        def text(key: str, data: Any = data) -> str | None:
            value = data.get(key)
            return value if isinstance(value, str) and value else None

        started = text("started_at")
        try:
            at = None if started is None else utc_time(started, "started_at")
        except Unreadable:
            at = None
        return Described(
            text("format") or "unknown",
            About(agent_session_id=text("agent_session_id"), started_at=at,
                  cwd=text("cwd"), title=text("title"),
                  parent_session=text("parent_session_id")),
            times_recorded=text("times") != NO_TIMES,
        )  # fmt: skip
    return None
