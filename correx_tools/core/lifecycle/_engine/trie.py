"""A persistent vector whose nodes are tuples: the storage behind ``ToolState``.

Why not pyrsistent's C ``PVector`` here: its tree nodes are not Python objects,
so the cyclic garbage collector walks the *whole* vector every time it
visits one. A fold makes a new vector per event, each one young, so every
generation-0 collection walked all records (measured: 29k events/s at 300k
events, and retaining every snapshot did not finish). Tuple nodes are
ordinary objects: the collector visits each shared node once, however many
snapshots share it, and a young snapshot costs only the few nodes it copied.

The layout is the classic 32-way trie with a tail (as in Clojure's vector):
appends go to the tail; a full tail is pushed into the tree; ``set`` copies
one root-to-leaf path.

Speeds up: "records are never removed; invocations lists them in request
order" (``ToolState``). Equal to: a Python list of the records, copied on
each change; ``tests/test_trie.py`` runs a state machine of appends, sets and
batches against exactly that model.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Generic, TypeVar, final

T = TypeVar("T")

_BITS = 5
_WIDTH = 1 << _BITS
_MASK = _WIDTH - 1

Node = tuple[Any, ...]


@final
class Trie(Generic[T]):
    """An immutable sequence with O(log32 n) ``set``, amortised O(1) ``append``."""

    __slots__ = ("_count", "_root", "_shift", "_tail")

    def __init__(self, count: int, shift: int, root: Node, tail: Node) -> None:
        self._count = count
        self._shift = shift
        self._root = root
        self._tail = tail

    @staticmethod
    def empty() -> Trie[T]:
        """The empty vector."""
        return _EMPTY

    def __len__(self) -> int:
        return self._count

    def _tail_offset(self) -> int:
        return self._count - len(self._tail)

    def __getitem__(self, index: int) -> T:
        if index < 0:
            index += self._count
        if not 0 <= index < self._count:
            raise IndexError(f"index {index} out of range for {self._count} records")
        offset = self._count - len(self._tail)
        if index >= offset:
            item: T = self._tail[index - offset]
            return item
        node = self._root
        level = self._shift
        while level > 0:
            node = node[(index >> level) & _MASK]
            level -= _BITS
        leaf_item: T = node[index & _MASK]
        return leaf_item

    def append(self, item: T) -> Trie[T]:
        """A new vector with ``item`` at the end."""
        tail = self._tail
        if len(tail) < _WIDTH:
            return Trie(self._count + 1, self._shift, self._root, tail + (item,))
        count, shift = self._count, self._shift
        if (count >> _BITS) > (1 << shift):
            root: Node = (self._root, _new_path(shift, tail))
            shift += _BITS
        else:
            root = _push_tail(count, shift, self._root, tail)
        return Trie(count + 1, shift, root, (item,))

    def extend(self, items: list[T]) -> Trie[T]:
        """A new vector with ``items`` appended: the tail is filled, then whole leaves pushed."""
        if not items:
            return self
        count, shift, root, tail = self._count, self._shift, self._root, self._tail
        start = 0
        room = _WIDTH - len(tail)
        if room:
            start = min(room, len(items))
            tail = tail + tuple(items[:start])
        while start < len(items):
            # The tail is full: push it into the tree and start a new one.
            if ((count + start) >> _BITS) > (1 << shift):
                root = (root, _new_path(shift, tail))
                shift += _BITS
            else:
                root = _push_tail(count + start, shift, root, tail)
            tail = tuple(items[start : start + _WIDTH])
            start += _WIDTH
        return Trie(count + len(items), shift, root, tail)

    def set(self, index: int, item: T) -> Trie[T]:
        """A new vector with ``item`` at ``index`` (which must exist)."""
        if not 0 <= index < self._count:
            raise IndexError(f"index {index} out of range for {self._count} records")
        offset = self._count - len(self._tail)
        if index >= offset:
            at = index - offset
            tail = self._tail
            return Trie(self._count, self._shift, self._root, tail[:at] + (item,) + tail[at + 1 :])
        return Trie(
            self._count, self._shift, _set(self._shift, self._root, index, item), self._tail
        )

    def set_many(self, updates: dict[int, T]) -> Trie[T]:
        """A new vector with ``updates`` (index -> item, every index present) applied.

        Each leaf and inner node on the way is copied once, however many of
        its items change: a batch of nearby updates costs about one ``set``.
        """
        if not updates:
            return self
        count, offset = self._count, self._count - len(self._tail)
        tail: Node = self._tail
        in_tree: list[tuple[int, T]] = []
        tail_items: list[Any] | None = None
        for index, item in sorted(updates.items(), key=_first):
            if not 0 <= index < count:
                raise IndexError(f"index {index} out of range for {count} records")
            if index >= offset:
                if tail_items is None:
                    tail_items = list(tail)
                tail_items[index - offset] = item
            else:
                in_tree.append((index, item))
        if tail_items is not None:
            tail = tuple(tail_items)
        root = _set_many(self._shift, self._root, in_tree) if in_tree else self._root
        return Trie(count, self._shift, root, tail)

    def __iter__(self) -> Iterator[T]:
        offset = self._tail_offset()
        for start in range(0, offset, _WIDTH):
            yield from self._leaf(start)
        yield from self._tail

    def _leaf(self, index: int) -> Node:
        node = self._root
        level = self._shift
        while level > 0:
            node = node[(index >> level) & _MASK]
            level -= _BITS
        return node

    def leaves(self) -> Iterator[Node]:
        """The leaf tuples in order, the tail last; shared leaves are the same objects."""
        offset = self._tail_offset()
        for start in range(0, offset, _WIDTH):
            yield self._leaf(start)
        yield self._tail

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Trie):
            return NotImplemented
        if self is other:
            return True
        if self._count != other._count:
            return False
        return all(a is b or a == b for a, b in zip(self.leaves(), other.leaves(), strict=True))

    def __hash__(self) -> int:
        return hash(tuple(self))

    def __repr__(self) -> str:
        return f"Trie({list(self)!r})"


def _new_path(level: int, node: Node) -> Node:
    while level > 0:
        node = (node,)
        level -= _BITS
    return node


def _push_tail(count: int, level: int, parent: Node, tail: Node) -> Node:
    sub = ((count - 1) >> level) & _MASK
    if level == _BITS:
        child: Node = tail
    elif sub < len(parent):
        child = _push_tail(count, level - _BITS, parent[sub], tail)
    else:
        child = _new_path(level - _BITS, tail)
    return parent[:sub] + (child,) + parent[sub + 1 :]


def _set(level: int, node: Node, index: int, item: object) -> Node:
    if level == 0:
        at = index & _MASK
        return node[:at] + (item,) + node[at + 1 :]
    sub = (index >> level) & _MASK
    return node[:sub] + (_set(level - _BITS, node[sub], index, item),) + node[sub + 1 :]


def _set_many(level: int, node: Node, items: list[tuple[int, Any]]) -> Node:
    """``node`` with ``items`` (sorted ``(index, item)`` pairs under it) set, copying it once."""
    copy = list(node)
    if level == 0:
        for index, item in items:
            copy[index & _MASK] = item
        return tuple(copy)
    start = 0
    while start < len(items):
        sub = (items[start][0] >> level) & _MASK
        stop = start + 1
        while stop < len(items) and (items[stop][0] >> level) & _MASK == sub:
            stop += 1
        copy[sub] = _set_many(level - _BITS, node[sub], items[start:stop])
        start = stop
    return tuple(copy)


def _first(pair: tuple[int, Any]) -> int:
    return pair[0]


_EMPTY: Trie[Any] = Trie(0, _BITS, (), ())
