"""What an imported session says about itself: written as its first event, and read back.

An imported session begins with one event of the type `DESCRIBED` (version
1): the transcript's format, and what the transcript says of the session —
the agent's own session id, when it started, the working directory, a title;
and ``"times": "none"`` when the transcript records no time for any step (the
stored times then only keep the steps in order: no view should show them as
times). A description without ``times`` (every one an earlier release wrote)
is of a transcript that records its times. It is not a tool event: every store
keeps it as an ``OpaqueEvent``, the lifecycle passes over it, and `described`
reads it back for ``sessions``. A tagged event beside the conversation's
(`conversation`): pure, as they are; the shell reads it from a store
(`shell.transcripts.description`).
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, replace
from datetime import UTC, datetime
from typing import Any, final

from .events import OpaqueEvent, StoredEvent
from .outcome import Outcome, outcome_of

DESCRIBED = "correx.session.described"
"""The type tag of the event that describes an imported session."""
VERSION = 1
NO_TIMES = "none"
"""The description's ``times`` when the transcript records no time for any step."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class About:
    """What a transcript says of its session beside its calls, each part when it says it.

    Only what the transcript's first records say: a file that grows keeps the same
    description, so a later import of it can add to the session it made.
    """

    agent_session_id: str | None = None
    """The agent's own id of the session (Claude Code's ``sessionId``, a Codex rollout's id)."""
    started_at: datetime | None = None
    cwd: str | None = None
    """The working directory the agent ran in."""
    title: str | None = None
    parent_session: str | None = None
    """For a subagent's session: the session of the agent that started it."""


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
    outcome: Outcome | None = None
    """How the run ended, where the harness wrote it (`outcome`: the event after this one)."""


def described(events: Iterable[StoredEvent]) -> Described | None:
    """The description a session begins with, if it is an imported one, with its outcome
    (only the first two events are read: the outcome follows the description)."""
    found = iter(events)
    for stored in found:
        description = description_of(stored.event)
        if description is None:
            return None
        after = next(found, None)
        outcome = None if after is None else outcome_of(after.event)
        return description if outcome is None else replace(description, outcome=outcome)
    return None


def description_of(event: object) -> Described | None:
    """The description ``event`` holds; ``None`` for any other event (and for one of a
    later version, which a view shows as an event it does not know)."""
    if not isinstance(event, OpaqueEvent) or event.type != DESCRIBED or event.version != VERSION:
        return None
    data = event.data

    def text(key: str, data: Any = data) -> str | None:
        value = data.get(key)
        return value if isinstance(value, str) and value else None

    started = text("started_at")
    at = None if started is None else _utc(started)
    return Described(
        text("format") or "unknown",
        About(agent_session_id=text("agent_session_id"), started_at=at, cwd=text("cwd"),
              title=text("title"), parent_session=text("parent_session_id")),
        times_recorded=text("times") != NO_TIMES,
    )  # fmt: skip


def _utc(text: str) -> datetime | None:
    """An ISO 8601 time, in UTC (one without a zone is UTC); ``None`` for text that is none."""
    try:
        moment = datetime.fromisoformat(text)
        return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)
    except (ValueError, OverflowError):
        return None
