"""Usage added up: sessions, calls, tokens and cost per day, week, month, project, model,
agent, machine, user, session or 5-hour block, and over everything.

The input is every session's windows (`activity`) beside its listing. Days, weeks and
months are local: the caller gives the function from a UTC time to the wall-clock time
of the zone asked for (the shell reads the zone; the core reads no clock and no zone
database). A week begins on Monday (ISO 8601) and is named by that day. A **block** is
ccusage's 5-hour window: it begins at the whole hour (UTC) of a usage and takes every
later usage up to five hours after that start, unless more than five hours pass between
two usages; it is named by its start, local. Calls and sessions are counted where they
happened; tokens where they were spent.

**Cost** is the priced tokens' (at the table's prices, by model); tokens of a model with
no price (or none recorded) are never counted as $0: they are `UsageRow.unpriced_tokens`,
and a row whose tokens are all unpriced has no cost (``None``).
"""

from __future__ import annotations

from bisect import bisect_right
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from decimal import Decimal
from typing import Literal, final

from ..lifecycle.conversation import TokenUsage
from ..replay.pricing import PriceTable
from .activity import Window, quarter_start
from .listing import Listed

By = Literal["day", "week", "month", "project", "model", "agent", "machine", "user", "session",
             "block"]  # fmt: skip
BY: tuple[By, ...] = ("day", "week", "month", "project", "model", "agent", "machine", "user",
                      "session", "block")  # fmt: skip
"""Every way `usage_rows` can add usage up."""
NONE_KEY = "-"
"""The key of usage with no value for what it is grouped by (no project, no model, no time)."""
BLOCK_HOURS = 5

Local = Callable[[datetime], datetime]
"""From a UTC time to the wall-clock time of the zone asked for."""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class Report:
    """What a usage report asks: how to group (``by``), the zone's clock (``local``), the
    prices, and the range of time (UTC, ``[since, until)``; ``None``: no bound)."""

    by: By
    local: Local
    prices: PriceTable
    since: datetime | None = None
    until: datetime | None = None


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class UsageRow:
    """One row of a usage report: its ``key`` and what it adds up to."""

    key: str
    sessions: int
    calls: int
    tokens: TokenUsage
    cost: Decimal | None
    unpriced_tokens: int


@final
@dataclass(slots=True)
class _Tally:
    sessions: set[str] = field(default_factory=set)
    calls: int = 0
    tokens: TokenUsage = field(default_factory=TokenUsage)
    cost: Decimal = Decimal(0)
    priced: bool = False
    unpriced: int = 0

    def add(self, session: str, model: str | None, window: Window, prices: PriceTable) -> None:
        self.sessions.add(session)
        self.calls += window.calls
        if not window.messages:
            return
        self.tokens = self.tokens + window.tokens
        price = None if model is None else prices.price(model)
        if price is None:
            self.unpriced += window.tokens.total
        else:
            self.cost += price.of(window.tokens)
            self.priced = True

    def row(self, key: str) -> UsageRow:
        return UsageRow(key=key, sessions=len(self.sessions), calls=self.calls,
                        tokens=self.tokens, cost=self.cost if self.priced else None,
                        unpriced_tokens=self.unpriced)  # fmt: skip


Entry = tuple[Listed, int | None, str | None, Window]
"""One window of one session: its listing, its quarter (``None``: no time), its model."""


def usage_rows(entries: Iterable[Entry], by: By, *, local: Local,
               prices: PriceTable) -> tuple[list[UsageRow], UsageRow]:  # fmt: skip
    """The report's rows, in their order (times ascending, else the most tokens first), and
    the total over everything."""
    entries = list(entries)
    keyed = _blocks(entries, local) if by == "block" else None
    tallies: dict[str, _Tally] = {}
    total = _Tally()
    by_time: dict[int | None, str] = {}  # a day, week or month, by quarter: found once each
    for number, (listed, quarter, model, window) in enumerate(entries):
        if keyed is not None:
            key = keyed[number]
        elif by in ("day", "week", "month"):
            key = by_time.get(quarter) or by_time.setdefault(
                quarter, _key(by, listed, quarter, model, local)
            )
        else:
            key = _key(by, listed, quarter, model, local)
        tallies.setdefault(key, _Tally()).add(listed.session_id, model, window, prices)
        total.add(listed.session_id, model, window, prices)
    rows = [tally.row(key) for key, tally in tallies.items()]
    if by in ("day", "week", "month", "block"):
        rows.sort(key=lambda row: (row.key == NONE_KEY, row.key))
    else:
        rows.sort(key=lambda row: (-row.tokens.total, -row.calls, row.key))
    return rows, total.row("total")


def _key(by: By, listed: Listed, quarter: int | None, model: str | None, local: Local) -> str:
    facts = listed.facts
    match by:
        case "day" | "week" | "month":
            return time_key(by, quarter, local)
        case "project":
            return facts.project or NONE_KEY
        case "model":
            return model or NONE_KEY
        case "agent":
            return facts.agent or NONE_KEY
        case "machine":
            return listed.machine or NONE_KEY
        case "user":
            return listed.user or NONE_KEY
        case "session":
            return listed.session_id
        case "block":  # pragma: no cover - keyed by `_blocks`
            raise AssertionError(by)


def time_key(by: Literal["day", "week", "month"], quarter: int | None, local: Local) -> str:
    """The day, week or month (local) a quarter falls in; `NONE_KEY` for no time."""
    if quarter is None:
        return NONE_KEY
    day = local(quarter_start(quarter)).date()
    if by == "week":
        return (day - timedelta(days=day.weekday())).isoformat()
    return day.isoformat() if by == "day" else day.isoformat()[:7]


def _blocks(entries: list[Entry], local: Local) -> list[str]:
    """Each entry's block (see the module docstring), named by its start, local.

    The blocks are found from the usage windows in the order of their first usage: a window
    lies inside one quarter hour, and a block's end (five hours after a whole hour) is the
    start of a quarter, so a window is wholly in one block (a usage exactly on a block's
    end, to the microsecond, is counted in the next block; ccusage keeps it in the block it
    ends). The calls of a quarter join the block that quarter falls in; calls outside any
    block, and everything with no time, have the key `NONE_KEY`. A block is named by its
    start as the zone asked for shows it (``2026-12-01 09:00``).
    """
    span = timedelta(hours=BLOCK_HOURS)
    used = sorted(
        (n for n, (_, quarter, _, window) in enumerate(entries)
         if quarter is not None and window.messages and window.first_at is not None),
        key=lambda n: (entries[n][3].first_at, n),
    )  # fmt: skip
    keys = [NONE_KEY] * len(entries)
    starts: list[datetime] = []
    start: datetime | None = None
    last: datetime | None = None
    for n in used:
        window = entries[n][3]
        first, final = window.first_at, window.last_at
        assert first is not None  # a window with usage has its first and last times
        assert final is not None
        if start is None or last is None or first - start > span or first - last > span:
            start = first.replace(minute=0, second=0, microsecond=0)
            starts.append(start)
            last = final
        else:
            last = max(last, final)
        keys[n] = _named(start, local)
    for n, (_, quarter, _, window) in enumerate(entries):
        if keys[n] == NONE_KEY and quarter is not None and window.calls:
            at = quarter_start(quarter)
            found = bisect_right(starts, at) - 1
            if found >= 0 and at < starts[found] + span:
                keys[n] = _named(starts[found], local)
    return keys


def _named(start: datetime, local: Local) -> str:
    return local(start).strftime("%Y-%m-%d %H:%M")
