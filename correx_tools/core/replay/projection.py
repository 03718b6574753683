"""Projections: how a fold turns a session's events into a state.

A `Projection` is an initial state and a step. A fold drives it through
a `Runner`: by default one that steps, ``apply`` per event. A
projection may offer a runner of its own (``runner(start)``, see
`OffersRunner`); the fold uses it, and when that runner can also
`run` a stretch of events in one call, the fold hands it
every stretch that simply continues the session (`batching`).
`ToolProjector` offers the tool state's batch builder.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Generic, Protocol, TypeVar, cast, final, runtime_checkable

from returns.result import Result, Success

from ..lifecycle._engine.batch import ToolStateBuilder
from ..lifecycle.events import StoredEvent
from ..lifecycle.reducer import DefaultToolReducer, ToolReducer
from ..lifecycle.state import ToolState
from ..lifecycle.transitions import TransitionError

S = TypeVar("S")
S_co = TypeVar("S_co", covariant=True)
E_co = TypeVar("E_co", covariant=True)


class Projection(Protocol[S, E_co]):
    """An initial state and a pure step function over stored events."""

    def initial(self) -> S:
        """The state before the first event."""
        ...

    def apply(self, state: S, stored_event: StoredEvent) -> Result[S, E_co]:
        """The state after ``stored_event``, or the error that refuses it."""
        ...


class Runner(Protocol[S_co]):
    """A fold's engine: applies events one by one and gives the state when asked."""

    def apply(self, stored_event: StoredEvent) -> object | None:
        """Apply one event: ``None``, or the error that refuses it (nothing changes then)."""
        ...

    def state(self) -> S_co:
        """The state after every event applied so far."""
        ...


Continued = tuple[int, StoredEvent | None, str | None, StoredEvent | None]
"""What `BatchRunner.run` returns: the last sequence and event applied, the
session, and the event it stopped at (``None`` when the events ran out)."""


@runtime_checkable
class BatchRunner(Runner[S_co], Protocol):
    """A runner that can also take a stretch of events in one call."""

    def run(
        self,
        events: Iterator[StoredEvent],
        last: int,
        previous: StoredEvent | None,
        session: str | None,
    ) -> Continued:
        """Apply ``events`` while each is next in sequence, of ``session`` and accepted.

        It stops at the first event that is not, and hands it back unapplied.
        """
        ...


@runtime_checkable
class OffersRunner(Protocol[S]):
    """A projection with a runner of its own (the optional part of `Projection`)."""

    def runner(self, start: S) -> Runner[S]:
        """An engine that folds events from ``start``, giving what ``apply`` would."""
        ...


@final
class ToolProjector:
    """The tool reducer as a `Projection` over `ToolState`.

    With the default reducer it offers the batch builder as its runner, which
    builds a persistent state only when asked for one.

    >>> ToolProjector().initial() == ToolState.empty()
    True
    """

    __slots__ = ("_reducer",)

    def __init__(self, reducer: ToolReducer | None = None) -> None:
        self._reducer: ToolReducer = DefaultToolReducer() if reducer is None else reducer

    @property
    def reducer(self) -> ToolReducer:
        """The reducer each step is delegated to."""
        return self._reducer

    def initial(self) -> ToolState:
        """The empty state."""
        return ToolState.empty()

    def apply(
        self, state: ToolState, stored_event: StoredEvent
    ) -> Result[ToolState, TransitionError]:
        """Delegate to the reducer."""
        return self._reducer.reduce(state, stored_event)

    def step(self, state: ToolState, stored_event: StoredEvent) -> ToolState | TransitionError:
        """`apply` without the ``Result`` wrapper (the fold's fast path)."""
        reducer = self._reducer
        if isinstance(reducer, DefaultToolReducer):
            return reducer.step(state, stored_event)
        result = reducer.reduce(state, stored_event)
        if isinstance(result, Success):
            state_after: ToolState = result.unwrap()
            return state_after
        error: TransitionError = result.failure()
        return error

    def runner(self, start: ToolState) -> Runner[ToolState]:
        """The batch builder for the default reducer; a stepping runner for any other."""
        if type(self._reducer) is DefaultToolReducer:
            return ToolStateBuilder(start)
        return Stepping(self, start)


@final
class Refused:
    """A refused step of a projection, as `stepper` reports it (internal)."""

    __slots__ = ("error",)

    def __init__(self, error: object) -> None:
        self.error = error


@final
class Stepping(Generic[S]):
    """Any projection, one ``apply`` per event."""

    __slots__ = ("_state", "_step")

    def __init__(self, projection: Projection[S, object], initial: S) -> None:
        self._step = stepper(projection)
        self._state = initial

    def apply(self, stored_event: StoredEvent) -> object | None:
        """Apply one event: ``None``, or the error that refuses it."""
        outcome = self._step(self._state, stored_event)
        if type(outcome) is Refused:
            return outcome.error
        self._state = outcome
        return None

    def state(self) -> S:
        """The state after every event applied so far."""
        return self._state


def runner(
    projection: Projection[S, object], initial: S, *, every_state: bool = False
) -> Runner[S]:
    """The engine for a fold of ``projection`` from ``initial``.

    The projection's own runner if it offers one; a stepping runner otherwise,
    and also for a fold that will ask for the state after every event
    (``every_state``: stepping is the cheaper way to build them all).
    """
    if not every_state and isinstance(projection, OffersRunner):
        return cast(OffersRunner[S], projection).runner(initial)
    return Stepping(projection, initial)


def stepper(projection: Projection[S, object]) -> Callable[[S, StoredEvent], S | Refused]:
    """A step function for the fold: the next state, or a `Refused`.

    For a `ToolProjector` it calls the reducer's unwrapped step, so a
    fold does not build and unwrap one ``Result`` per event; any other
    projection's ``apply`` is wrapped. Both give exactly what ``apply`` gives.
    """
    candidate: object = projection
    if isinstance(candidate, ToolProjector):
        tool_step = candidate.step

        def fast(state: ToolState, stored_event: StoredEvent) -> ToolState | Refused:
            outcome = tool_step(state, stored_event)
            if isinstance(outcome, TransitionError):
                return Refused(outcome)
            return outcome

        return cast(Callable[[S, StoredEvent], S | Refused], fast)  # S is ToolState here
    apply = projection.apply

    def wrapped(state: S, stored_event: StoredEvent) -> S | Refused:
        result = apply(state, stored_event)
        if isinstance(result, Success):
            value: S = result.unwrap()
            return value
        return Refused(result.failure())

    return wrapped
