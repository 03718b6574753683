"""The tool reducer: one stored event applied to a ``ToolState``.

The rules are the transition table (`correx_tools.core.lifecycle.transitions`),
the time check and the fields each status sets; `_engine.rows.advance` applies
them to one invocation's fields, for this reducer and for the faster paths
alike.
"""

from __future__ import annotations

from typing import Protocol, final

from returns.result import Failure, Result, Success

from ._engine.rows import advance, new_row, record_from_fields
from .events import TOOL_EVENT_TYPES, StoredEvent
from .state import ToolState
from .transitions import TransitionError


class ToolReducer(Protocol):
    """Applies one stored event to a state, or says why it cannot."""

    def reduce(
        self, state: ToolState, stored_event: StoredEvent
    ) -> Result[ToolState, TransitionError]:
        """The state after ``stored_event``; a ``Failure`` leaves ``state`` as it was."""
        ...


@final
class DefaultToolReducer:
    """The reducer of the lifecycle table in `correx_tools.core.lifecycle.transitions`.

    Pure and stateless: the same state and event always give the same result,
    and a refused event never changes the state it was given. Events that are
    not tool events leave the state unchanged.
    """

    __slots__ = ()

    def reduce(
        self, state: ToolState, stored_event: StoredEvent
    ) -> Result[ToolState, TransitionError]:
        """Apply ``stored_event`` to ``state`` following the transition table."""
        outcome = self.step(state, stored_event)
        if type(outcome) is TransitionError:
            return Failure(outcome)
        return Success(outcome)

    def step(self, state: ToolState, stored_event: StoredEvent) -> ToolState | TransitionError:
        """`reduce` without the ``Result``: the new state or the refusal.

        The fold calls this directly; it saves wrapping every step in a
        ``Result`` that is unwrapped again at once.
        """
        event = stored_event.event
        if not isinstance(event, TOOL_EVENT_TYPES):
            return state
        position = state.position(event.invocation_id)
        row = new_row() if position is None else list(state.record_at(position))
        refused = advance(row, stored_event, event)
        if refused is not None:
            return refused
        new = record_from_fields(row)
        return state.with_new(new) if position is None else state.with_updated(position, new)
