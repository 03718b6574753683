"""A lean map is ``pmap``'s map with tuple buckets: it answers, changes, compares, hashes,
pickles and prints exactly as the map ``pmap`` builds from the same items, and the
collector stops tracking its buckets."""

from __future__ import annotations

import gc
import pickle
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from pyrsistent import PMap, pmap, pvector

from correx_tools.core.tools._lean_map import LEAN, frozen_map, lean_pmap
from correx_tools.core.tools.json_values import freeze_json

keys = st.text(max_size=6)
scalars = st.none() | st.booleans() | st.integers() | st.text(max_size=8)
items = st.dictionaries(keys, scalars, max_size=30)
edits = st.lists(
    st.tuples(st.sampled_from(["set", "discard", "update"]), keys, scalars), max_size=12
)


def _edited(value: PMap[str, Any], steps: list[tuple[str, str, Any]]) -> PMap[str, Any]:
    for step, key, item in steps:
        if step == "set":
            value = value.set(key, item)
        elif step == "discard":
            value = value.discard(key)
        else:
            value = value.update({key: item, key + "+": item})
    return value


def test_this_pyrsistent_lays_maps_out_as_the_lean_map_expects() -> None:
    # Were it not so, frozen_map would quietly be pmap and the imports slower.
    assert LEAN is True
    assert frozen_map is lean_pmap


@given(items, st.lists(keys, max_size=5))
def test_a_lean_map_answers_as_pmaps_map(found: dict[str, Any], asked: list[str]) -> None:
    lean, plain = lean_pmap(found), pmap(found)
    assert lean == plain and plain == lean and lean == found
    assert hash(lean) == hash(plain)
    assert list(lean.items()) == list(plain.items())  # the same order: the same buckets
    assert repr(lean) == repr(plain)
    assert len(lean) == len(found)
    for key in [*found, *asked]:
        assert (key in lean) == (key in found)
        assert lean.get(key, "absent") == found.get(key, "absent")
    assert pickle.loads(pickle.dumps(lean)) == plain


@given(items, edits)
def test_a_lean_map_changes_as_pmaps_map(found: dict[str, Any], steps: list[Any]) -> None:
    lean, plain = _edited(lean_pmap(found), steps), _edited(pmap(found), steps)
    assert lean == plain and hash(lean) == hash(plain)
    assert dict(lean) == dict(plain)
    evolver = lean_pmap(found).evolver()
    for number in range(50):  # enough to make pyrsistent grow the buckets
        evolver[f"new{number}"] = number
    assert dict(evolver.persistent()) == {**found, **{f"new{n}": n for n in range(50)}}


def test_frozen_json_objects_are_lean_and_their_buckets_untracked() -> None:
    frozen = freeze_json({"text": "hello", "model": "m", "nested": {"a": [1, 2]}})
    assert frozen == pmap({"text": "hello", "model": "m", "nested": pmap({"a": pvector([1, 2])})})
    assert isinstance(frozen._buckets, tuple)  # not a C vector walked slot by slot
    buckets = [bucket for bucket in frozen._buckets if bucket]
    assert buckets and all(type(bucket) is tuple for bucket in buckets)
    # Strings alone, so that no bucket holds a map whatever the keys' hashes this run.
    flat = freeze_json({"text": "hello", "model": "m", "id": "msg_1"})
    gc.collect()  # a pair is let go first, then (next time) the bucket that holds it
    gc.collect()
    # A bucket of keys and strings is no object the collector walks again.
    held = [bucket for bucket in flat._buckets if bucket]
    assert len(held) >= 1 and not any(gc.is_tracked(bucket) for bucket in held)
