"""``pmap(items)`` built with fewer objects for the collector to walk.

pyrsistent's ``pmap`` keeps a map's pairs in a vector of buckets, each bucket a
``list`` of ``(key, value)`` tuples. A list is always tracked by the cyclic
garbage collector, so every frozen JSON object costs it one list per key, and
a session of a million events holds millions of them: each full collection walks
them all again. Importing a large transcript spent a third of its time there
(docs/performance-log.md).

`lean_pmap` builds the very map ``pmap`` builds (the same number of buckets,
the same pairs in the same buckets in the same order) with each bucket a tuple,
and the buckets in a tuple too (`_Buckets`) rather than in a C vector, which
the collector visits slot by slot at several times a tuple's cost. A tuple of
strings and numbers is one the collector stops tracking. pyrsistent only ever
iterates a bucket (replacing one it changes with a new list), indexes the
buckets, and asks them for an evolver to change the map (`_Buckets.evolver`
gives a vector's), so the map reads, compares, hashes, pickles, prints and
changes exactly as ``pmap``'s; a changed map is an ordinary one. That rests on
how pyrsistent lays a map out, which is not its public contract: the project
pins the pyrsistent releases it was checked against (``pyproject.toml``: 0.20,
any patch release of it), and ``tests/test_lean_map.py`` checks the layout
against the one installed (lookups, equality both ways, hash, order, changes,
growth past a reallocation), rather than every import paying for the check.

Per map with two keys, one full collection cost 1,200 ns with ``pmap``, 460 ns
with tuple buckets in a vector, 320 ns with both tuples (300,000 maps alive).

>>> lean_pmap({"text": "hello", "model": "m"}) == pmap({"text": "hello", "model": "m"})
True
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pyrsistent import PMap, pmap, pvector

_EMPTY: PMap[str, Any] = pmap()


class _Buckets(tuple[Any, ...]):
    """A lean map's buckets: a tuple that gives pyrsistent a vector's evolver to change."""

    __slots__ = ()

    def evolver(self) -> Any:
        """What pyrsistent changes a map through: a new vector's evolver."""
        return pvector(self).evolver()


def lean_pmap(items: Mapping[str, Any]) -> PMap[str, Any]:
    """The map ``pmap(items)`` builds, each of its buckets a tuple rather than a list."""
    if not items:
        return _EMPTY
    size = 2 * len(items)  # as pyrsistent sizes a new map
    buckets: list[Any] = [None] * size
    for key, value in items.items():
        index = hash(key) % size
        bucket = buckets[index]
        buckets[index] = ((key, value),) if bucket is None else (*bucket, (key, value))
    made: PMap[str, Any] = PMap(len(items), _Buckets(buckets))  # type: ignore[call-arg]
    return made
