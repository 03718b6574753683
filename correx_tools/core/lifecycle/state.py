"""``ToolState``: every invocation of one session, in request order."""

from __future__ import annotations

from collections.abc import Container, Iterable, Iterator
from typing import final

from pyrsistent import PVector, pvector
from returns.maybe import Maybe, Nothing, Some

from ..tools.ids import InvocationId
from ._engine.index import EMPTY_INDEX, PositionIndex
from ._engine.trie import Trie
from .record import ToolInvocationRecord


@final
class ToolState:
    """The tool invocations of one session after some prefix of its events.

    An immutable value: each reducer step returns a new state that shares
    almost all of its structure with the previous one. Records are never
    removed; ``invocations`` lists them in request order and ``get`` finds one
    by id in O(log n).

    >>> state = ToolState.empty()
    >>> len(state), state.get(InvocationId("nope"))
    (0, <Nothing>)
    """

    __slots__ = ("_index", "_invocations", "_records")

    _records: Trie[ToolInvocationRecord]
    _index: PositionIndex
    _invocations: PVector[ToolInvocationRecord] | None

    def __init__(self, records: Trie[ToolInvocationRecord], index: PositionIndex) -> None:
        # Internal: build states with ToolState.empty() and the reducer.
        _set_records(self, records)
        _set_index(self, index)
        _set_invocations(self, None)

    @staticmethod
    def empty() -> ToolState:
        """The state before any event: no invocations."""
        return _EMPTY

    @property
    def invocations(self) -> PVector[ToolInvocationRecord]:
        """All records in request order, as a pyrsistent ``PVector``.

        Built on first use and kept with this state (the state itself stores
        its records in a structure the garbage collector handles cheaply).
        """
        built = self._invocations
        if built is None:
            built = pvector(self._records)
            _set_invocations(self, built)
        return built

    def get(self, invocation_id: InvocationId) -> Maybe[ToolInvocationRecord]:
        """The record of ``invocation_id``, or ``Nothing`` if it was never requested."""
        position = self._index.get(invocation_id, self._records)
        if position is None:
            return Nothing
        return Some(self._records[position])

    def find(self, invocation_id: str) -> ToolInvocationRecord | None:
        """Like `get` but returning ``None``: the reducer's fast path."""
        position = self._index.get(invocation_id, self._records)
        if position is None:
            return None
        return self._records[position]

    def records(self) -> Iterator[ToolInvocationRecord]:
        """Iterate the records in request order without building a ``PVector``."""
        return iter(self._records)

    def __len__(self) -> int:
        return len(self._records)

    def __contains__(self, invocation_id: object) -> bool:
        return isinstance(invocation_id, str) and (
            self._index.get(invocation_id, self._records) is not None
        )

    def with_new(self, record: ToolInvocationRecord) -> ToolState:
        """A new state with ``record`` added last; its id must be new."""
        state = _NEW(ToolState)
        _set_records(state, self._records.append(record))
        _set_index(state, self._index.with_added(((record.invocation_id, len(self._records)),)))
        _set_invocations(state, None)
        return state

    def with_updated(self, position: int, record: ToolInvocationRecord) -> ToolState:
        """A new state with the record at ``position`` (see `position`) replaced."""
        state = _NEW(ToolState)
        _set_records(state, self._records.set(position, record))
        _set_index(state, self._index)
        _set_invocations(state, None)
        return state

    def with_batch(
        self,
        updated: dict[int, ToolInvocationRecord],
        appended: list[ToolInvocationRecord],
        positions: dict[str, int],
    ) -> ToolState:
        """A new state with records replaced at ``updated`` positions and ``appended`` last.

        ``positions`` maps the id of each appended record to its position; the
        caller hands it over and must not change it afterwards.
        One persistent update for many events: the fold's batch path
        (`correx_tools.core.lifecycle._engine.batch`) commits through it.
        """
        records = self._records.set_many(updated).extend(appended)
        index = self._index.with_positions(positions) if positions else self._index
        state = _NEW(ToolState)
        _set_records(state, records)
        _set_index(state, index)
        _set_invocations(state, None)
        return state

    @staticmethod
    def of_records(records: Iterable[ToolInvocationRecord]) -> ToolState:
        """A state holding exactly ``records``, in this order (their ids must be distinct).

        >>> ToolState.of_records([]) == ToolState.empty()
        True
        """
        held = list(records)
        if not held:
            return _EMPTY
        positions: dict[str, int] = {record.invocation_id: i for i, record in enumerate(held)}
        if len(positions) != len(held):
            raise ValueError("records must have distinct invocation ids")
        return _EMPTY.with_batch({}, held, positions)

    def position(self, invocation_id: str) -> int | None:
        """The 0-based request-order position of ``invocation_id``, if requested."""
        return self._index.get(invocation_id, self._records)

    def placed_ids(self) -> Container[str]:
        """A superset of the ids this state holds: an id not in it was never requested.

        One lookup, where `position` also checks the record; the batch
        path asks it before every new request.
        """
        return self._index.placed()

    def record_at(self, position: int) -> ToolInvocationRecord:
        """The record at a 0-based position in request order."""
        return self._records[position]

    def __reduce__(self) -> tuple[object, tuple[object, ...]]:
        # The records alone, the index rebuilt from them: a lineage's index may hold
        # ids of other branches, which the copy has no use for.
        return _restore, (self._records,)

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError(f"ToolState is immutable; cannot set {name!r}")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, ToolState):
            return NotImplemented
        return self is other or self._records == other._records

    def __hash__(self) -> int:
        return hash(self._records)

    def __repr__(self) -> str:
        return f"ToolState(invocations={len(self)})"


_NEW = object.__new__
# Slot setters: ToolState refuses attribute assignment, so its own code writes
# the slots through their descriptors (faster than object.__setattr__ too).
_set_records = ToolState.__dict__["_records"].__set__
_set_index = ToolState.__dict__["_index"].__set__
_set_invocations = ToolState.__dict__["_invocations"].__set__

_EMPTY = ToolState(Trie.empty(), EMPTY_INDEX)


def _restore(records: Trie[ToolInvocationRecord]) -> ToolState:
    """A state of ``records`` with a new index (unpickling)."""
    return ToolState(
        records, EMPTY_INDEX.with_added((r.invocation_id, i) for i, r in enumerate(records))
    )
