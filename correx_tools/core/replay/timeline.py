"""Time travel over one replay: the state at any retained sequence.

A `Timeline` is built by `fold_events`
when it is given a `Retention`. It holds
the events it covers and the snapshots the policy keeps; between two
checkpoints it re-folds the events with the same projection.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass
from typing import Any, Generic, TypeVar, final

from returns.maybe import Maybe, Nothing, Some

from ..lifecycle.events import TOOL_EVENT_TYPES, StoredEvent
from ..lifecycle.record import ToolInvocationRecord
from ..lifecycle.state import ToolState
from ..tools.ids import InvocationId
from .projection import BatchRunner, Projection, Refused, runner, stepper
from .retention import Retention, RetentionKind

S = TypeVar("S")

ALL_STRIDE = 64
"""How far apart ``Retention.all()`` keeps full states; ``at`` re-folds the rest.

Keeping every state made the garbage collector the bottleneck: each retained
state is a handful of objects that every full collection visits, and full
collections run more often as the live set grows (measured at 300k events:
7.6 s with every state kept, 5.3 s of it in the collector). With the batch
path re-folding is cheap, so ``at`` re-folds at most 63 events (about 0.03 ms
at 1M events). Every state stays reachable; only the storage differs.
"""


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class RecordChange:
    """One record that differs between two points; ``before`` is ``None`` if it is new."""

    invocation_id: InvocationId
    before: ToolInvocationRecord | None
    after: ToolInvocationRecord


@final
class Timeline(Generic[S]):
    """The retained snapshots of one replay, addressable by sequence.

    ``at(0)`` is the initial state (or, for a resumed replay, the state it
    resumed from); ``len(timeline)`` is the last sequence it covers. Asking
    for a sequence the policy did not keep raises ``IndexError`` naming the
    range it did keep.
    """

    __slots__ = (
        "_events",
        "_first_event",
        "_first_snapshot",
        "_last",
        "_projection",
        "_quarantined",
        "_snapshots",
        "_stride",
    )

    def __init__(
        self,
        *,
        projection: Projection[S, Any],
        events: Sequence[StoredEvent],
        first_event: int,
        snapshots: Sequence[S],
        first_snapshot: int,
        stride: int,
        last: int,
        quarantined: frozenset[int],
    ) -> None:
        # Internal: timelines are built by fold_events.
        self._projection = projection
        self._events = events
        self._first_event = first_event
        self._snapshots = snapshots
        self._first_snapshot = first_snapshot
        self._stride = stride
        self._last = last
        self._quarantined = quarantined

    def __len__(self) -> int:
        return self._last

    @property
    def retained(self) -> range:
        """The sequences ``at`` can answer for, as a ``range``."""
        return range(self._first_snapshot, self._last + 1)

    def _check(self, sequence: int, what: str, low: int) -> None:
        if type(sequence) is not int:
            raise TypeError(f"{what} takes an int sequence, not {type(sequence).__name__}")
        if not low <= sequence <= self._last:
            raise IndexError(
                f"sequence {sequence} is outside the retained range {low}..{self._last}"
            )

    def at(self, sequence: int) -> S:
        """The state right after the event at ``sequence`` (``at(0)``: before any).

        >>> from correx_tools.core.replay.fold import fold_events
        >>> from correx_tools.core.replay.projection import ToolProjector
        >>> timeline = fold_events(ToolProjector(), [], retention=Retention.all()).unwrap().timeline
        >>> timeline.at(0) == ToolState.empty()
        True
        """
        self._check(sequence, "at", self._first_snapshot)
        slot = (sequence - self._first_snapshot) // self._stride
        state = self._snapshots[slot]
        start = self._first_snapshot + slot * self._stride
        return self._refold(state, start, sequence)

    def _refold(self, state: S, start: int, stop: int) -> S:
        if start == stop:
            return state
        engine = runner(self._projection, state)
        quarantined = self._quarantined
        if isinstance(engine, BatchRunner) and (
            not quarantined or quarantined.isdisjoint(range(start + 1, stop + 1))
        ):
            # Every event in between was applied in the replay, so a batch
            # runner takes them all in one call.
            first = start + 1 - self._first_event
            events = iter(self._events[first : first + stop - start])
            _, _, _, stopped = engine.run(events, start, None, None)
            if stopped is not None:
                raise _not_deterministic(stopped.sequence, "refused by the batch path")
            refolded: S = engine.state()
            return refolded
        for sequence in range(start + 1, stop + 1):
            if sequence in self._quarantined:
                continue
            refused = engine.apply(self._events[sequence - self._first_event])
            if refused is not None:
                raise _not_deterministic(sequence, refused)
        return engine.state()

    def event(self, sequence: int) -> StoredEvent:
        """The stored event at ``sequence``."""
        self._check(sequence, "event", max(self._first_event, 1))
        return self._events[sequence - self._first_event]

    def states(self) -> Iterator[tuple[int, S]]:
        """Every retained ``(sequence, state)`` in order, re-folding once between checkpoints."""
        if self._stride == 1:
            yield from enumerate(self._snapshots, start=self._first_snapshot)
            return
        step = stepper(self._projection)
        for slot, checkpoint in enumerate(self._snapshots):
            start = self._first_snapshot + slot * self._stride
            state = checkpoint
            yield start, state
            for sequence in range(start + 1, min(start + self._stride, self._last + 1)):
                if sequence not in self._quarantined:
                    outcome = step(state, self._events[sequence - self._first_event])
                    if isinstance(outcome, Refused):
                        raise _not_deterministic(sequence, outcome.error)
                    state = outcome
                yield sequence, state

    def first(self, predicate: Callable[[S], bool]) -> Maybe[int]:
        """The earliest retained sequence whose state satisfies ``predicate``."""
        for sequence, state in self.states():
            if predicate(state):
                return Some(sequence)
        return Nothing

    def history(
        self: Timeline[ToolState], invocation_id: InvocationId
    ) -> tuple[tuple[int, ToolInvocationRecord], ...]:
        """Each version of one invocation's record with the sequence that made it.

        Versions are looked for at the earliest retained point and at every
        applied event that names the invocation; an empty tuple means it was
        never requested within the retained range.
        """
        versions: list[tuple[int, ToolInvocationRecord]] = []
        previous = self.at(self._first_snapshot).find(invocation_id)
        if previous is not None:
            versions.append((self._first_snapshot, previous))
        first_event = max(self._first_snapshot + 1, self._first_event)
        for sequence in range(first_event, self._last + 1):
            event = self._events[sequence - self._first_event].event
            if (
                sequence in self._quarantined
                or not isinstance(event, TOOL_EVENT_TYPES)
                or event.invocation_id != invocation_id
            ):
                continue
            record = self.at(sequence).find(invocation_id)
            if record is not None and record is not previous:
                versions.append((sequence, record))
                previous = record
        return tuple(versions)

    def diff(self: Timeline[ToolState], a: int, b: int) -> tuple[RecordChange, ...]:
        """The records added or changed from the state at ``a`` to the state at ``b``.

        ``a`` must not be after ``b``; changes come in request order.
        """
        if a > b:
            raise ValueError(f"diff goes forward: sequence a={a} is after b={b}")
        before, after = self.at(a), self.at(b)
        changes: list[RecordChange] = []
        known = len(before)
        for position, record in enumerate(after.records()):
            if position >= known:
                changes.append(
                    RecordChange(invocation_id=record.invocation_id, before=None, after=record)
                )
                continue
            old = before.record_at(position)
            if old is not record and old != record:
                changes.append(
                    RecordChange(invocation_id=record.invocation_id, before=old, after=record)
                )
        return tuple(changes)

    def __repr__(self) -> str:
        retained = self.retained
        return f"Timeline(retained={retained.start}..{retained.stop - 1}, stride={self._stride})"


def _not_deterministic(sequence: int, refusal: object) -> AssertionError:
    # A refold must apply what the replay applied: a projection that does not is broken.
    return AssertionError(
        f"the projection is not deterministic: sequence {sequence} applied during the "
        f"replay but not when re-folded ({refusal!r})"
    )


class TimelineRecorder(Generic[S]):
    """Collects what a `Timeline` needs while a fold runs (internal)."""

    __slots__ = ("_base", "_events", "_kind", "_last", "_quarantined", "_size", "_snapshots")

    def __init__(self, retention: Retention, initial: S, base: int) -> None:
        self._kind = retention.kind
        # Retention.all() keeps a checkpoint every ALL_STRIDE events, not every
        # state: see ALL_STRIDE for why.
        self._size = ALL_STRIDE if retention.kind is RetentionKind.ALL else retention.size
        self._base = base
        self._last = base
        self._quarantined: set[int] = set()
        if self._kind is RetentionKind.LAST:
            self._events: list[StoredEvent] | deque[StoredEvent] = deque(maxlen=self._size)
            self._snapshots: list[S] | deque[S] = deque([initial], maxlen=self._size)
        else:
            self._events = []
            self._snapshots = [initial]

    def record(self, stored: StoredEvent, state: Callable[[], S], *, applied: bool) -> None:
        """Note ``stored``; ``state()`` gives the state after it, called only for a snapshot."""
        self._events.append(stored)
        self._last = stored.sequence
        if not applied:
            self._quarantined.add(stored.sequence)
        if self._kind is RetentionKind.LAST or (self._last - self._base) % self._size == 0:
            self._snapshots.append(state())

    def next_checkpoint(self) -> int:
        """The sequence of the next snapshot ``all()`` or ``every(k)`` takes."""
        return self._last + self._size - (self._last - self._base) % self._size

    def record_applied(self, run: list[StoredEvent], state: Callable[[], S]) -> None:
        """Note ``run``: events each applied, numbered on from the last, none past the next
        checkpoint (the batch path's loop between two); a snapshot if it ends on one."""
        if not run:
            return
        self._events.extend(run)
        self._last = run[-1].sequence
        if (self._last - self._base) % self._size == 0:
            self._snapshots.append(state())

    def build(self, projection: Projection[S, Any]) -> Timeline[S]:
        """The finished timeline."""
        events = self._events
        snapshots = self._snapshots
        first_snapshot = self._base
        first_event = self._base + 1
        if self._kind is RetentionKind.LAST:
            first_snapshot = self._last - len(snapshots) + 1
            first_event = self._last - len(events) + 1
            events, snapshots = tuple(events), tuple(snapshots)  # type: ignore[assignment]
        low = first_snapshot + 1
        quarantined = frozenset(q for q in self._quarantined if q >= low)
        return Timeline(
            projection=projection,
            events=events,
            first_event=first_event,
            snapshots=snapshots,
            first_snapshot=first_snapshot,
            stride=1 if self._kind is RetentionKind.LAST else self._size,
            last=self._last,
            quarantined=quarantined,
        )
