"""What an imported session says about itself: the event it begins with.

An imported session begins with one event of the type `DESCRIBED` (version 1): the
transcript's format, and what the transcript says of the session — the agent's own
session id, when it started, the working directory, a title, the session that started it
(a subagent's) — and ``"times": "none"`` when the transcript records no time for any step
(the stored times then only keep the steps in order: no view should show them as times).
A description without ``times`` (every one an earlier release wrote) is of a transcript
that records its times. It is not a tool event: every store keeps it as an `OpaqueEvent`,
the lifecycle passes over it, and `description_of` reads it back.

>>> event = description_event(Description(format="codex", cwd="/repo"))
>>> event.type, description_of(event)
('correx.session.described', Description(format='codex', agent_session_id=None, started_at=None, cwd='/repo', title=None, parent_session=None, times_recorded=True))
"""  # noqa: E501

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, final

from .events import OpaqueEvent

DESCRIBED = "correx.session.described"
"""The type tag of the event that describes an imported session."""
VERSION = 1
NO_TIMES = "none"
"""The description's ``times`` when the transcript records no time for any step."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Description:
    """An imported session's description: its transcript's ``format``, and what the
    transcript says of it (each ``None`` where it says nothing). ``times_recorded`` is false
    when the transcript records no time for any step."""

    format: str
    agent_session_id: str | None = None
    started_at: datetime | None = None
    cwd: str | None = None
    title: str | None = None
    parent_session: str | None = None
    times_recorded: bool = True


def description_event(description: Description) -> OpaqueEvent:
    """The event a store keeps for ``description`` (the first of its session)."""
    started = description.started_at
    data = {
        "format": description.format,
        "agent_session_id": description.agent_session_id,
        "started_at": None if started is None else started.isoformat(),
        "cwd": description.cwd,
        "title": description.title,
        "parent_session_id": description.parent_session,
        "times": None if description.times_recorded else NO_TIMES,
    }
    return OpaqueEvent(
        type=DESCRIBED, version=VERSION, data={key: value for key, value in data.items() if value}
    )


def description_of(event: object) -> Description | None:
    """The description ``event`` holds; ``None`` for any other event (and for one of a later
    version, which a view shows as an event it does not know)."""
    if not isinstance(event, OpaqueEvent) or event.type != DESCRIBED or event.version != VERSION:
        return None
    data = event.data
    return Description(
        format=_text(data, "format") or "unknown",
        agent_session_id=_text(data, "agent_session_id"),
        started_at=_time(_text(data, "started_at")),
        cwd=_text(data, "cwd"),
        title=_text(data, "title"),
        parent_session=_text(data, "parent_session_id"),
        times_recorded=_text(data, "times") != NO_TIMES,
    )


def _text(data: Any, key: str) -> str | None:
    value = data.get(key)
    return value if isinstance(value, str) and value else None


def _time(text: str | None) -> datetime | None:
    """An ISO 8601 time, in UTC (one without a zone is UTC); ``None`` for none or garbage."""
    if text is None:
        return None
    try:
        moment = datetime.fromisoformat(text)
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except (ValueError, OverflowError):
        return None
