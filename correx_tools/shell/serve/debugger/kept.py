"""One session as the server's catalog keeps it: listed as the commands list it, moved on by
the events written since, without reading a tool event.

A session's facts (`SessionFacts`) depend on its first event (the description), its last
(how far it goes, and when), and its conversation events (the title, models and tokens)
alone: `SessionFacts.taking` reads nothing else of the events between. So they are folded
from those events only, through a store's index of the conversation where it keeps one,
and equal the facts folded from every event (a test holds the two to each other). Its
calls are counted by the repository (from the store's index where it has one). A session
whose events do not hold together (a gap, an event that cannot be read) is kept as
damaged, with why, and no facts.

The activity by quarter hour, which only usage reports ask for, needs every event (the
calls' times): it is folded when first asked, and moved on from there.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from itertools import islice
from typing import final

from returns.result import Success

from ....core.catalog.activity import Activity
from ....core.catalog.facts import SessionFacts
from ....core.catalog.listing import Listed, counts_of
from ....core.lifecycle.events import StoredEvent
from ....core.tools.ids import SessionId
from ...catalog.folded import RUN
from ...replay.repository import DefaultToolRepository
from ...stores.port import EventStore, first_event, session_events
from ...stores.said import conversation_events


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Kept:
    """A session folded through sequence ``through``: its listing, or why it is damaged;
    and its activity where asked for, folded through ``activity_through``."""

    session_id: SessionId
    through: int
    listed: Listed | None = None
    damaged: str | None = None
    activity: Activity | None = None
    activity_through: int = 0


def fold_on(
    store: EventStore,
    repository: DefaultToolRepository,
    session: SessionId,
    last: int,
    kept: Kept | None,
) -> Kept:
    """The session through ``last``, moved on from ``kept`` (folded whole again where it
    is damaged, or longer than the session now is)."""
    summary = repository.summary(session, at=last)
    if not isinstance(summary, Success):
        # Even a lenient fold refuses events that do not hold together: the session is
        # listed as damaged, the others as they are.
        return Kept(session_id=session, through=last, damaged=summary.failure().message)
    if kept is None or kept.listed is None or kept.through > last:
        kept = Kept(session_id=session, through=0)
    facts = kept.listed.facts if kept.listed is not None else SessionFacts()
    facts = facts.taking(_telling(store, session, kept.through, last))
    listed = Listed(session_id=session, facts=facts, counts=counts_of(summary.unwrap()))
    return replace(kept, through=last, listed=listed, damaged=None)


def _telling(store: EventStore, session: SessionId, through: int, last: int) -> list[StoredEvent]:
    """The events after ``through`` that the facts are folded from, in order: the first
    two (where ``through`` is 0: the description and how the run ended), the
    conversation's, and the last."""
    if last <= through:
        return []
    found: dict[int, StoredEvent] = {}
    if through == 0:
        with session_events(store, session) as events:
            found.update((s.sequence, s) for s in islice(events, 2) if s.sequence <= last)
    with conversation_events(store, session, after=through, before=last + 1) as said:
        found.update((stored.sequence, stored) for stored in said)
    if last not in found:
        final = first_event(store, session, after=last - 1)
        if final is not None and final.sequence == last:
            found[last] = final
    return [found[sequence] for sequence in sorted(found)]


def with_activity(store: EventStore, kept: Kept) -> Kept:
    """``kept`` with its activity folded through ``kept.through`` (read from where it was
    folded to, a run of events at a time)."""
    listed = kept.listed
    if listed is None or (kept.activity is not None and kept.activity_through == kept.through):
        return kept
    activity, through = kept.activity, kept.activity_through
    if activity is None or through > kept.through:
        activity, through = Activity(), 0
    times = listed.facts.times_recorded
    with session_events(store, kept.session_id, after=through) as events:
        while run := [s for s in islice(events, RUN) if s.sequence <= kept.through]:
            activity = activity.taking(run, times_recorded=times)
            if run[-1].sequence >= kept.through:
                break
    return replace(kept, activity=activity, activity_through=kept.through)
