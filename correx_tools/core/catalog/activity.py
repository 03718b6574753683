"""A session's activity by quarter hour: the calls it asked for and the tokens each model
spent, in each 15-minute window of UTC time.

A quarter hour is the finest window any report needs: every time zone in use is a
whole number of quarter hours from UTC, so a quarter falls wholly inside one local day
whatever ``--tz`` is, and the 5-hour blocks (which begin on a whole hour) are made of
whole quarters. Each window keeps its first and last usage times too: the blocks rule
(a gap of more than five hours ends a block) needs the gap between usages, and a gap
inside one quarter is never that long.

Where a session's times are stand-ins (its transcript records none), its activity has no
time: it is kept under the quarter ``None`` and counted in every total, but in no day.

>>> from datetime import UTC, datetime
>>> from correx_tools.core.lifecycle.conversation import TokenUsage, Usage, conversation_event
>>> from correx_tools.core.lifecycle.events import StoredEvent
>>> at = datetime(2026, 12, 1, 9, 20, tzinfo=UTC)
>>> used = conversation_event(Usage(usage=TokenUsage(output=5), model="m"))
>>> windows = Activity().taking([StoredEvent(session_id="s", sequence=1, recorded_at=at,
...                                          event=used)], times_recorded=True)
>>> [(quarter_start(q), m, w.tokens.output) for (q, m), w in windows.windows.items()]
[(datetime.datetime(2026, 12, 1, 9, 15, tzinfo=datetime.timezone.utc), 'm', 5)]
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime, timedelta
from typing import final

from ..lifecycle.conversation import TokenUsage, Usage, conversation_of
from ..lifecycle.events import StoredEvent, ToolInvocationRequestedEvent

QUARTER = 900
"""Seconds in a window."""
_EPOCH = datetime(1970, 1, 1, tzinfo=UTC)


def quarter_of(moment: datetime) -> int:
    """The window ``moment`` falls in: whole quarter hours since 1970-01-01 UTC."""
    return int((moment - _EPOCH).total_seconds() // QUARTER)


def quarter_start(quarter: int) -> datetime:
    """When window ``quarter`` begins (UTC)."""
    return _EPOCH + timedelta(seconds=quarter * QUARTER)


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Window:
    """What happened in one window, by one model (``model`` ``None``: not recorded; the
    calls of a window are kept under ``None``, as no model asks for a call): the calls
    asked for, the usage records and their tokens, and the first and last usage times."""

    calls: int = 0
    messages: int = 0
    tokens: TokenUsage = field(default_factory=TokenUsage)
    first_at: datetime | None = None
    last_at: datetime | None = None

    def plus(self, other: Window) -> Window:
        """Both windows' activity together (the same window and model)."""
        firsts = [t for t in (self.first_at, other.first_at) if t is not None]
        lasts = [t for t in (self.last_at, other.last_at) if t is not None]
        return Window(
            calls=self.calls + other.calls,
            messages=self.messages + other.messages,
            tokens=self.tokens + other.tokens,
            first_at=min(firsts) if firsts else None,
            last_at=max(lasts) if lasts else None,
        )


WindowKey = tuple[int | None, str | None]
"""A window: its quarter (``None``: no time recorded) and its model."""


@final
@dataclass(frozen=True, slots=True)
class Activity:
    """A session's windows, by quarter and model."""

    windows: Mapping[WindowKey, Window] = field(default_factory=dict)

    def taking(self, events: Iterable[StoredEvent], *, times_recorded: bool) -> Activity:
        """This activity moved on by ``events`` (the session's next ones, in order);
        ``times_recorded`` false puts them all in the window of no time."""
        added: dict[WindowKey, Window] = {}
        for stored in events:
            event = stored.event
            quarter = quarter_of(stored.recorded_at) if times_recorded else None
            if isinstance(event, ToolInvocationRequestedEvent):
                _add(added, (quarter, None), Window(calls=1))
                continue
            message = conversation_of(event)
            if isinstance(message, Usage):
                at = stored.recorded_at if times_recorded else None
                _add(added, (quarter, message.model),
                     Window(messages=1, tokens=message.usage, first_at=at, last_at=at))  # fmt: skip
        if not added:
            return self
        merged = dict(self.windows)
        for key, window in added.items():
            _add(merged, key, window)
        return replace(self, windows=merged)


def _add(windows: dict[WindowKey, Window], key: WindowKey, window: Window) -> None:
    kept = windows.get(key)
    windows[key] = window if kept is None else kept.plus(window)
