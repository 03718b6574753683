"""One session as a list of many shows it, and which sessions a question picks.

A `Listed` session is its id, where it was recorded (``machine``, ``user``: a store that
holds several machines' sessions says; ``None`` elsewhere), its facts and the counts of
its calls. `SessionQuery` is what a person asks of the list (an agent, a part of a
project's path, a model, a time range, failures only, a machine) and `picks` the rule;
`recent_first` the order every list shows: the session that moved last, first.

>>> from correx_tools.core.catalog.facts import SessionFacts
>>> listed = Listed(session_id="s", facts=SessionFacts(), counts=CallCounts())
>>> picks(listed, SessionQuery()), picks(listed, SessionQuery(failed=True))
(True, False)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass
from datetime import datetime
from typing import TYPE_CHECKING, final

from ..lifecycle.status import ToolInvocationStatus
from .facts import SessionFacts

if TYPE_CHECKING:
    from ..replay.summary import SessionSummary


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class CallCounts:
    """A session's calls: asked for, and how many stand in each status, the completed ones
    that exited non-zero, and the events the lifecycle refused."""

    calls: int = 0
    requested: int = 0
    started: int = 0
    completed: int = 0
    failed: int = 0
    rejected: int = 0
    exited_nonzero: int = 0
    refused: int = 0

    @property
    def unfinished(self) -> int:
        """Calls not ended: requested or started (the tables' ``open`` column)."""
        return self.requested + self.started

    @property
    def failures(self) -> int:
        """Calls that went wrong: failed, rejected, or completed with a non-zero exit."""
        return self.failed + self.rejected + self.exited_nonzero


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Listed:
    """One session of a list: its id, where it was recorded, its facts, its calls."""

    session_id: str
    facts: SessionFacts
    counts: CallCounts
    machine: str | None = None
    user: str | None = None


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class SessionQuery:
    """Which sessions to list: each field left ``None`` (or false) asks nothing.

    ``project`` is a part of the project's path and ``model`` a part of a model's name
    (neither minds case); ``since`` and ``until`` (UTC) keep the sessions active in that
    range: last moved at or after ``since``, began before ``until`` (a session whose
    transcript records no time is in no range); ``failed`` keeps those with a failed,
    rejected or non-zero call.
    """

    agent: str | None = None
    project: str | None = None
    model: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    failed: bool = False
    machine: str | None = None
    user: str | None = None

    @property
    def asks_nothing(self) -> bool:
        """Whether every session is picked."""
        return self == SessionQuery()


def picks(listed: Listed, query: SessionQuery) -> bool:
    """Whether the question picks this session (the rule every store's list follows)."""
    facts = listed.facts
    if query.agent is not None and (facts.agent or "").lower() != query.agent.lower():
        return False
    if query.project is not None and query.project.lower() not in (facts.project or "").lower():
        return False
    if query.model is not None and not any(
        query.model.lower() in model.lower() for model in facts.talk.models
    ):
        return False
    if query.since is not None and (facts.ended is None or facts.ended < query.since):
        return False
    if query.until is not None and (facts.started is None or facts.started >= query.until):
        return False
    if query.failed and not listed.counts.failures:
        return False
    if query.machine is not None and listed.machine != query.machine:
        return False
    return query.user is None or listed.user == query.user


def recent_first(sessions: Iterable[Listed]) -> list[Listed]:
    """The sessions that moved last first; those with no time recorded after every one that
    has, by id."""
    sessions = list(sessions)
    timed = sorted((s for s in sessions if s.facts.ended is not None),
                   key=lambda s: (s.facts.ended, s.session_id), reverse=True)  # fmt: skip
    untimed = sorted((s for s in sessions if s.facts.ended is None), key=_id)
    return timed + untimed


def _id(listed: Listed) -> str:
    return listed.session_id


def counts_of(summary: SessionSummary) -> CallCounts:
    """A session summary's calls, as a list counts them."""
    counts = summary.counts
    return CallCounts(
        calls=summary.invocations,
        completed=counts[ToolInvocationStatus.COMPLETED],
        failed=counts[ToolInvocationStatus.FAILED],
        rejected=counts[ToolInvocationStatus.REJECTED],
        requested=counts[ToolInvocationStatus.REQUESTED],
        started=counts[ToolInvocationStatus.STARTED],
        exited_nonzero=summary.exited_nonzero,
        refused=summary.refused,
    )
