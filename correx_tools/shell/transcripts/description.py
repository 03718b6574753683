"""An imported session's description as the shell reads it: from a store, and as
``sessions --json`` shows it (the event itself is `core.lifecycle.description`'s)."""

from __future__ import annotations

from typing import Any

from ...core.lifecycle.description import Described, described
from ...core.lifecycle.outcome import outcome_json
from ...core.tools.ids import SessionId
from ..stores.codec.envelope import format_timestamp
from ..stores.port import EventStore, session_events


def session_description(store: EventStore, session: SessionId) -> Described | None:
    """The description ``session`` begins with in ``store``, if it was imported, and its
    outcome; only its first two events are read."""
    with session_events(store, session) as events:
        return described(events)


def description_json(found: Described | None) -> dict[str, Any] | None:
    """A session's description as ``sessions --json`` shows it (``None``: not imported),
    with how the run ended (``outcome``: ``None`` where no harness said)."""
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
        "outcome": outcome_json(found.outcome),
    }
