"""An imported session's description (`correx_tools.core.lifecycle.description`) as the
importer writes it from a transcript's `About`, and as the commands read it back from a
store: `session_description` reads only a session's first event."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from typing import final

from ...core.lifecycle.description import Description, description_of
from ...core.lifecycle.description import description_event as core_description_event
from ...core.lifecycle.events import OpaqueEvent, StoredEvent
from ...core.tools.ids import SessionId
from ..stores.codec.envelope import format_timestamp
from ..stores.port import EventStore, session_events
from .calls import About


def description_event(format: str, about: About, *, times_recorded: bool = True) -> OpaqueEvent:
    """The event that describes a session imported from a ``format`` transcript
    (``times_recorded`` false: one that records no time for any step)."""
    return core_description_event(
        Description(format=format, agent_session_id=about.agent_session_id,
                    started_at=about.started_at, cwd=about.cwd, title=about.title,
                    parent_session=about.parent_session, times_recorded=times_recorded)
    )  # fmt: skip


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
    """A session's description, if it is an imported one (only the first event is read)."""
    for stored in events:
        found = description_of(stored.event)
        if found is None:
            return None
        return Described(
            found.format,
            About(agent_session_id=found.agent_session_id, started_at=found.started_at,
                  cwd=found.cwd, title=found.title, parent_session=found.parent_session),
            times_recorded=found.times_recorded,
        )  # fmt: skip
    return None
