"""Projections: how a fold turns a session's events into a state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Generic, Protocol, TypeVar, cast, final

from returns.result import Result, Success

from .batch import ToolStateBuilder
from .events import StoredEvent
from .reducer import DefaultToolReducer, ToolReducer
from .state import ToolState
from .transitions import TransitionError

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


@final
class ToolProjector:
    """The tool reducer as a :class:`Projection` over :class:`ToolState`.

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
        """:meth:`apply` without the ``Result`` wrapper (the fold's fast path)."""
        reducer = self._reducer
        if isinstance(reducer, DefaultToolReducer):
            return reducer.step(state, stored_event)
        result = reducer.reduce(state, stored_event)
        if isinstance(result, Success):
            state_after: ToolState = result.unwrap()
            return state_after
        error: TransitionError = result.failure()
        return error


@final
class Refused:
    """A refused step of a projection, as :func:`stepper` reports it (internal)."""

    __slots__ = ("error",)

    def __init__(self, error: object) -> None:
        self.error = error


class Runner(Protocol[S_co]):
    """A fold's engine: applies events one by one and gives the state when asked (internal)."""

    def apply(self, stored_event: StoredEvent) -> object | None:
        """Apply one event: ``None``, or the error that refuses it (nothing changes then)."""
        ...

    def state(self) -> S_co:
        """The state after every event applied so far."""
        ...


@final
class _Stepping(Generic[S]):
    """Any projection, one ``apply`` per event."""

    __slots__ = ("_state", "_step")

    def __init__(self, projection: Projection[S, object], initial: S) -> None:
        self._step = stepper(projection)
        self._state = initial

    def apply(self, stored_event: StoredEvent) -> object | None:
        outcome = self._step(self._state, stored_event)
        if type(outcome) is Refused:
            return outcome.error
        self._state = outcome
        return None

    def state(self) -> S:
        return self._state


def runner(
    projection: Projection[S, object], initial: S, *, every_state: bool = False
) -> Runner[S]:
    """The engine for a fold of ``projection`` from ``initial``.

    The default tool projector gets the batch path
    (:class:`~correx_tools.core.batch.ToolStateBuilder`), which builds a
    persistent state only when one is asked for; any other projection steps,
    and so does a fold that will ask for the state after ``every_state`` event
    (stepping is the cheaper way to build them all).
    """
    candidate: object = projection
    if (
        not every_state
        and isinstance(candidate, ToolProjector)
        and type(candidate.reducer) is DefaultToolReducer
        and isinstance(initial, ToolState)
    ):
        return cast(Runner[S], ToolStateBuilder(initial))
    return _Stepping(projection, initial)


def stepper(projection: Projection[S, object]) -> Callable[[S, StoredEvent], S | Refused]:
    """A step function for the fold: the next state, or a :class:`Refused`.

    For a :class:`ToolProjector` it calls the reducer's unwrapped step, so a
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
