"""Projections: how a fold turns a session's events into a state."""

from __future__ import annotations

from collections.abc import Callable
from typing import Protocol, TypeVar, cast, final

from returns.result import Result, Success

from .events import StoredEvent
from .reducer import DefaultToolReducer, ToolReducer
from .state import ToolState
from .transitions import TransitionError

S = TypeVar("S")
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
