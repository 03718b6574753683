"""A session split at its checkpoints, so that its parts are checked or rebuilt at once.

Each checkpoint holds the session's counters and chain after its sequence:
enough to start the index's fold there instead of at the first event. What a
part cannot know from its own events is the state of the invocations requested
before it that it moves on (a call started in one part and ended in the next).
It takes that state from the stored index as it stood at the part's start, and
says what it took (`Outside.assumed`); whoever joins the parts, in order, holds
every part to what the parts before it made: its start (counters, chain) and
each state it took. A part that took something else — a damaged checkpoint or
invocation row — sends the session back to the one-process path, so the
answers never depend on the split.

Parts start at multiples of both the checkpoint interval and the batch the
one-process path reads, so each part reads the very batches it would have, and
a fault stops a part where it would have stopped the whole pass.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable, Iterator, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any, Protocol, TypeVar, final

from ....core.replay.stored_index import STATUS_CODES, STATUS_OF_CODE, EntryChange
from ....core.replay.stored_index import InvocationState as State
from .dialect import Cursor, Dialect
from .index import last_sequence

R = TypeVar("R")

LONG_AGO = datetime(1, 1, 1, tzinfo=UTC)
"""The request time a check gives an ended invocation: one that ended refuses every event
whatever its time."""

SMALLEST_PART = 25_000
"""Fewer events than this in a part are not worth a process (one starts in about 0.4 s, the
time the one-process path takes over 25,000 events): a session of fewer than twice as many
is worked whole, here."""

LARGEST_PART = 25_000
"""The most events a part holds (with the default checkpoint interval; see `plan`): what a
part keeps while it is worked and on its way back (its state, its rows) is bounded by
this, not by the session's length. At 1M events in eight parts of 125,000, `reindex
--workers 2` peaked at 232 MB (docs/performance-log.md, 2026-12-07); the benchmark row
"SQLite: correx-tools reindex --workers 2" holds it to 200 MB."""


@final
@dataclass(frozen=True, slots=True)
class Part:
    """Events ``start + 1`` to ``end`` of a session, and what its fold starts from: the
    counters and chain of the checkpoint at ``start`` and the chain stored with the event
    at ``start`` (``previous``: what the next stored chain continues)."""

    session_id: str
    start: int
    end: int
    counts: tuple[int, ...]
    chain: int
    previous: int
    interval: int
    batch: int


class Runner(Protocol):
    """Works a session's parts, in worker processes or here, and gives their results in the
    parts' order. ``here`` works one part in this process, in the caller's snapshot."""

    @property
    def workers(self) -> int:
        """How many processes work at once, this one among them."""
        ...

    def run(self, task: str, parts: Sequence[Part], here: Callable[[Part], Any]) -> list[Any]:
        """Each part's result (``task``: ``"verify"``, ``"rebuild"`` or ``"rebuild!"``, a
        rebuild that accepts edits)."""
        ...

    def stream(
        self, task: str, parts: Sequence[Part], here: Callable[[Part], Any]
    ) -> Iterator[Any]:
        """Each part's result in the parts' order, as soon as it is in (few held at once)."""
        ...


def plan(
    d: Dialect,
    cursor: Cursor,
    session_id: str,
    interval: int,
    pieces: int,
    *,
    batch: int,
    smallest: int = SMALLEST_PART,
    largest: int = LARGEST_PART,
) -> list[Part] | None:
    """The session's parts, about ``pieces`` of them (more, if a part would pass
    ``largest`` events), each starting at a checkpoint; ``None`` when it is too small to
    split (or has no checkpoint where one would start). A part starts where a checkpoint
    and a batch meet (every ``lcm(interval, batch)`` events): one is at most ``largest``
    long, or that step where a store's interval makes the step longer."""
    last = last_sequence(d, cursor, session_id)
    if pieces < 2 or last < 2 * smallest:
        return None
    step = math.lcm(interval, batch)
    pieces = max(pieces, math.ceil(last / largest))
    size = max(math.ceil(last / pieces / step), math.ceil(smallest / step), 1) * step
    size = min(size, max(largest // step, 1) * step)  # the bound wins over the smallest
    starts = list(range(size, last, size))
    if not starts:
        return None
    key = d.session_key(session_id)
    marks = ", ".join("?" * len(starts))
    points = {
        row[0]: (tuple(row[1:7]), row[7])
        for row in cursor.execute(
            d.sql(
                "SELECT sequence, requested, started, completed, failed, rejected, refused, "
                f"chain FROM {{checkpoints}} WHERE {{session}} = ? AND sequence IN ({marks})"
            ),
            (key, *starts),
        )
    }
    chains = dict(
        cursor.execute(
            d.sql(
                "SELECT sequence, chain FROM {events} WHERE {session} = ? "
                f"AND sequence IN ({marks})"
            ),
            (key, *starts),
        ).fetchall()
    )
    # A start without its checkpoint (or its event) is no start: the part before runs on.
    starts = [s for s in starts if s in points and s in chains]
    if not starts:
        return None
    bounds = [0, *starts, last]
    parts = []
    for start, end in itertools.pairwise(bounds):
        counts, chain = points.get(start, ((0,) * 6, 0))
        stored = chains.get(start)
        previous = chain if stored is None else int(stored)
        parts.append(Part(session_id, start, end, counts, chain, previous, interval, batch))
    return parts


Assumed = tuple[int, datetime] | None
"""The state a part took for an invocation requested before it: status code and request
time (`LONG_AGO` for an ended one, if the one-process path gives that), or none."""


@final
class Outside:
    """The invocations requested before a part, as the part sees them: first taken from
    the stored index at the part's start (and noted in ``assumed``), then moved on by the
    part's own events (`moved`)."""

    def __init__(self, d: Dialect, cursor: Cursor, part: Part, *, ended_long_ago: bool) -> None:
        self.d, self.cursor, self.part, self.ended_long_ago = d, cursor, part, ended_long_ago
        self.assumed: dict[str, Assumed] = {}
        self._now: dict[str, Assumed] = {}

    def states(self, ids: Iterable[str]) -> dict[str, State]:
        """The state of each of ``ids`` requested before the part (those that were)."""
        wanted = [i for i in ids if i not in self._now]
        if wanted:
            taken = self._stored(wanted)
            for invocation in wanted:
                self.assumed[invocation] = self._now[invocation] = taken.get(invocation)
        session = self.part.session_id
        found: dict[str, State] = {}
        for invocation in ids:
            state = self._now[invocation]
            if state is not None:
                found[invocation] = State(session, STATUS_OF_CODE[state[0]], state[1])
        return found

    def knows(self, invocation: str) -> bool:
        """Whether the invocation was requested before the part (as the part took it)."""
        return self._now.get(invocation) is not None

    def moved(self, change: EntryChange) -> None:
        """One of them moved on by one of the part's events."""
        state = self._now[change.invocation_id]
        assert state is not None  # only a known invocation is moved on
        at = LONG_AGO if change.kind == 3 and self.ended_long_ago else state[1]
        self._now[change.invocation_id] = (STATUS_CODES[change.status], at)

    def _stored(self, ids: list[str]) -> dict[str, Assumed]:
        d, part = self.d, self.part
        by_key = {d.invocation_key(invocation): invocation for invocation in ids}
        mine = d.session_key(part.session_id)
        query = d.sql(
            "SELECT {invocation}, {session}, sequence, status, requested_at, started_seq, "
            "ended_seq FROM {invocations} WHERE {invocation} "
        )
        taken: dict[str, Assumed] = {}
        for fragment, keys in d.key_sets(list(by_key)):
            for key, session, sequence, status, at, started, ended in self.cursor.execute(
                query + fragment, keys
            ):
                if session != mine or sequence is None or sequence > part.start:
                    continue
                when = d.when(at)
                if ended is not None and ended <= part.start and status in STATUS_OF_CODE:
                    taken[by_key[key]] = (status, LONG_AGO if self.ended_long_ago else when)
                elif started is not None and started <= part.start:
                    taken[by_key[key]] = (2, when)
                else:
                    taken[by_key[key]] = (1, when)
        return taken


def shipped(change: EntryChange) -> EntryChange:
    """A change as a worker sends it back: without its lifecycle event (not needed to move
    a row on, and costly to send)."""
    return change._replace(event=None)


def held(assumed: dict[str, Assumed], truth: Callable[[str], Assumed]) -> bool:
    """Whether every state a part took is the one the parts before it made."""
    return all(truth(invocation) == state for invocation, state in assumed.items())
