"""Handing a fold's events to a batch runner: what makes the fold fast, apart from its rules.

The fold (`fold`) is a plain loop that decides one event at a time. A
`BatchRunner` can take a whole stretch of events in one
call, deciding each one exactly as the fold would, for as long as each event
simply continues the session and is accepted. `unapplied` gives such a
runner every stretch and yields to the fold only the events it stopped at;
for any other runner it yields every event. Recording a timeline, it gives
the runner one slice at a time, never past the next checkpoint, and hands the
rest of a slice the runner stopped in to the fold's loop.
``tests/test_batch.py`` holds folds through this path to folds that step.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from itertools import islice
from typing import Protocol, TypeVar

from ..lifecycle.events import StoredEvent
from .projection import BatchRunner, Runner

S = TypeVar("S")
S_contra = TypeVar("S_contra", contravariant=True)

SLICE = 256
"""The most events a batch runner takes at once while a timeline is recorded.

The timeline needs each event, so they are taken into a list first; after a
refused or out-of-order event the rest of the list goes through the fold's
own loop, which this bounds.
"""


@dataclass(slots=True)
class Cursor:
    """Where a fold is in its session: the last sequence and event applied, the session."""

    last: int
    previous: StoredEvent | None = None
    session: str | None = None


class Checkpoints(Protocol[S_contra]):
    """What a timeline recorder offers the batch path (internal to the fold)."""

    def next_checkpoint(self) -> int:
        """The sequence of the next snapshot it takes."""
        ...

    def record_applied(self, run: list[StoredEvent], state: Callable[[], S_contra]) -> None:
        """Note a run of applied events; ``state()`` gives the state after them."""
        ...


def unapplied(
    engine: Runner[S],
    events: Iterable[StoredEvent],
    cursor: Cursor,
    recorder: Checkpoints[S] | None,
) -> Iterator[StoredEvent]:
    """The events ``engine`` did not apply itself, for the fold to decide one by one.

    ``cursor`` is shared with the fold: the runner moves it on over what it
    applies, and the fold over what it decides.
    """
    if not isinstance(engine, BatchRunner):
        return iter(events)
    if recorder is None:
        return _stretches(engine, iter(events), cursor)
    return _slices(engine, iter(events), cursor, recorder)


def _stretches(
    engine: BatchRunner[S], events: Iterator[StoredEvent], cursor: Cursor
) -> Iterator[StoredEvent]:
    while True:
        cursor.last, cursor.previous, cursor.session, stopped = engine.run(
            events, cursor.last, cursor.previous, cursor.session
        )
        if stopped is None:
            return
        yield stopped


def _slices(
    engine: BatchRunner[S],
    events: Iterator[StoredEvent],
    cursor: Cursor,
    recorder: Checkpoints[S],
) -> Iterator[StoredEvent]:
    while True:
        chunk = list(islice(events, min(recorder.next_checkpoint() - cursor.last, SLICE)))
        if not chunk:
            return
        before = cursor.last
        rest = iter(chunk)
        cursor.last, cursor.previous, cursor.session, stopped = engine.run(
            rest, cursor.last, cursor.previous, cursor.session
        )
        # The runner applies consecutive sequences only: the first last - before events.
        recorder.record_applied(chunk[: cursor.last - before], engine.state)
        if stopped is not None:
            yield stopped
            yield from rest
