"""What a session's events say of it beyond its calls' lifecycle: who wrote it, where, its
title, its models and tokens, and when it began and ended.

Folded from the events one at a time (`SessionFacts.taking`), so a store keeps them at
write time and moves them on with each append; a view with only the events folds them
the same way. The rules:

* **Agent and project** come from the description an imported session begins with (its
  transcript's format, and its working directory); a session recorded by this library
  has neither.
* **The title** is the agent's own (the description's), else the first prompt's first
  line (`TalkSummary`); a view masks it, then cuts it.
* **Tokens** are the usage events' (`Usage`), kept by model in the order first seen;
  ``None`` while none is recorded (a format that records none says so, not 0).
* **Times** are the first and last events' recorded times, unless the description says
  the transcript records none (then both are ``None``: stand-in times keep order only).
* **The outcome** (how the run ended, as its harness wrote) is the event right after the
  description, where there is one; it is kept without its patch (`without_patch`).

>>> from datetime import UTC, datetime
>>> from correx_tools.core.lifecycle.conversation import Prompt, conversation_event
>>> from correx_tools.core.lifecycle.events import StoredEvent
>>> at = datetime(2026, 12, 1, tzinfo=UTC)
>>> facts = SessionFacts().taking([StoredEvent(session_id="s", sequence=1, recorded_at=at,
...                                            event=conversation_event(Prompt(text="go")))])
>>> facts.title, facts.events, facts.first_at == at
('go', 1, True)
"""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field, replace
from datetime import datetime
from typing import Literal, final

from ..lifecycle.conversation import ConversationEvent, TokenUsage, Usage, conversation_of
from ..lifecycle.description import Described, described_at
from ..lifecycle.events import StoredEvent
from ..lifecycle.outcome import outcome_of, without_patch
from ..replay.spending import Spent
from ..replay.talk_summary import TalkSummary


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class SessionFacts:
    """What a session's events say of it (see the module docstring for the rules)."""

    description: Described | None = None
    talk: TalkSummary = field(default_factory=TalkSummary)
    spent: Spent | None = None
    events: int = 0
    first_at: datetime | None = None
    last_at: datetime | None = None

    @property
    def agent(self) -> str | None:
        """The agent that wrote it (its transcript's format); ``None``: recorded here."""
        return None if self.description is None else self.description.format

    @property
    def project(self) -> str | None:
        """The working directory its transcript records, if any."""
        return None if self.description is None else self.description.about.cwd

    @property
    def times_recorded(self) -> bool:
        """Whether its events' times are the agent's (not stand-ins keeping order only)."""
        return self.description is None or self.description.times_recorded

    @property
    def title(self) -> str | None:
        """The agent's own title, else the first prompt's first line (whole: a view masks
        it, then cuts it)."""
        own = None if self.description is None else self.description.about.title
        return own or self.talk.title

    @property
    def title_from(self) -> Literal["agent", "prompt"] | None:
        """Where the title came from."""
        if self.description is not None and self.description.about.title:
            return "agent"
        return None if self.talk.title is None else "prompt"

    @property
    def tokens(self) -> TokenUsage | None:
        """Every model's tokens together; ``None`` while none is recorded."""
        return None if self.spent is None else self.spent.total

    @property
    def started(self) -> datetime | None:
        """When it began: its first event's time (``None`` where times are not recorded)."""
        return self.first_at if self.times_recorded else None

    @property
    def ended(self) -> datetime | None:
        """When it last moved: its last event's time (``None`` where not recorded)."""
        return self.last_at if self.times_recorded else None

    def taking(self, events: Iterable[StoredEvent]) -> SessionFacts:
        """These facts moved on by ``events`` (the session's next ones, in order)."""
        description, spent = self.description, self.spent
        count, first_at, last_at = self.events, self.first_at, self.last_at
        said: list[ConversationEvent] = []
        for stored in events:
            if count == 0:
                first_at = stored.recorded_at
                description = described_at(stored)
            elif count == 1 and description is not None:
                outcome = outcome_of(stored.event)
                if outcome is not None:
                    description = replace(description, outcome=without_patch(outcome))
            count = stored.sequence
            last_at = stored.recorded_at
            message = conversation_of(stored.event)
            if message is None:
                continue
            said.append(message)
            if isinstance(message, Usage):
                spent = Spent(by_model=()) if spent is None else spent
                spent = spent.plus(message.model, message.usage)
        talk = self.talk.hearing(said) if said else self.talk
        return replace(self, description=description, talk=talk, spent=spent, events=count,
                       first_at=first_at, last_at=last_at)  # fmt: skip
