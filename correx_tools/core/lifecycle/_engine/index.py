"""Invocation id to position: the index behind ``ToolState.get``, shared along a lineage.

Records are only ever appended, so a state with ``n`` records knows exactly
the ids at positions ``0 .. n-1``. Every state derived from another (one
*lineage*) can therefore share one plain ``dict`` of id to position, written
once per id and never changed: a state reads it and checks that the record at
the position it finds really has that id. A persistent map per state (the
``immutables`` HAMT this replaced) cost a path of new nodes per request; at a
million events those nodes outnumbered the records three to one, and the
garbage collector walked every one of them on each full collection.

Branches stay correct. A state derived from an older one (re-folding from a
checkpoint, say) may put a *different* id at a position the lineage already
used: the read check finds the other id there and treats it as absent. If it
requests an id the lineage placed elsewhere, ``dict.setdefault`` (atomic, so
threads may share states) keeps the first position, and the branch records
its own in a small persistent ``overlay`` that only its states see.

Speeds up: ``ToolState.get`` finding a record by id. Equal to: a scan of the
state's records for that id; ``tests/test_batch.py`` (the branching state
machine) holds every lookup on every branch to a plain model.
"""

from __future__ import annotations

from collections.abc import Container, Iterable
from typing import final

from pyrsistent import PMap, pmap

from ..record import ToolInvocationRecord
from .trie import Trie


@final
class PositionIndex:
    """Where each id sits in a state's records (internal to ``ToolState``)."""

    __slots__ = ("_overlay", "_shared")

    def __init__(self, shared: dict[str, int] | None, overlay: PMap[str, int] | None) -> None:
        self._shared = shared
        self._overlay = overlay

    def get(self, invocation_id: str, records: Trie[ToolInvocationRecord]) -> int | None:
        """The position of ``invocation_id`` in ``records`` (the asking state's), if there."""
        overlay = self._overlay
        if overlay is not None:
            position = overlay.get(invocation_id)
            if position is not None:
                return position
        shared = self._shared
        if shared is None:
            return None
        position = shared.get(invocation_id)
        if (
            position is None
            or position >= len(records)
            or records[position].invocation_id != invocation_id
        ):
            return None
        return position

    def placed(self) -> Container[str]:
        """Every id the lineage has placed: those of any state using this index, and more.

        An id not in it is surely absent, which one ``dict`` lookup tells.
        """
        return _NOTHING_PLACED if self._shared is None else self._shared

    def with_positions(self, positions: dict[str, int]) -> PositionIndex:
        """Like `with_added` for a dict the caller hands over and never touches again.

        A state's first batch becomes its lineage's dict as it is, without a copy.
        """
        if self._shared is None:
            return PositionIndex(positions, self._overlay)
        return self.with_added(positions.items())

    def with_added(self, added: Iterable[tuple[str, int]]) -> PositionIndex:
        """The index that also places each ``(id, position)``; the ids must be new to the state."""
        shared = self._shared
        overlay = self._overlay
        fresh = shared is None
        if shared is None:
            shared = {}
        for invocation_id, position in added:
            if shared.setdefault(invocation_id, position) != position:
                # The lineage placed this id elsewhere, on another branch: ours goes aside.
                overlay = (overlay or _NO_OVERLAY).set(invocation_id, position)
        if not fresh and overlay is self._overlay:
            return self
        return PositionIndex(shared, overlay)


_NO_OVERLAY: PMap[str, int] = pmap()
_NOTHING_PLACED: frozenset[str] = frozenset()

EMPTY_INDEX = PositionIndex(None, None)
"""The index of a state with no records: its first addition starts a new lineage dict."""
