"""A lean map is ``pmap``'s map with tuple buckets: it answers, changes, compares, hashes,
pickles and prints exactly as the map ``pmap`` builds from the same items, and the
collector stops tracking its buckets.

It is built from pyrsistent's private layout, so the layout is checked here, against the
pyrsistent installed, and the project pins the releases it was checked against."""

from __future__ import annotations

import gc
import pickle
import tomllib
from importlib.metadata import version
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from packaging.requirements import Requirement
from pyrsistent import PMap, pmap, pvector

from correx_tools.core.tools._lean_map import lean_pmap
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
    sample = {"text": "hello", "model": None, "tokens": 12, "nested": pmap({"a": 1}), "b": 2.5}
    lean, plain = lean_pmap(sample), pmap(sample)
    assert lean == plain and plain == lean
    assert hash(lean) == hash(plain)
    assert list(lean.items()) == list(plain.items())  # the same buckets, in the same order
    assert repr(lean) == repr(plain)
    assert all(lean[key] == value and key in lean for key, value in sample.items())
    assert "absent" not in lean and lean.get("absent", 0) == 0
    changed = lean.set("tokens", 13).set("new", "x").remove("text").discard("model")
    assert changed == plain.set("tokens", 13).set("new", "x").remove("text").discard("model")
    assert lean.update({"b": 3}) == plain.update({"b": 3})
    grown = lean.evolver()
    for number in range(40):  # past a reallocation of the buckets
        grown[f"k{number}"] = number
    assert dict(grown.persistent()) == {**sample, **{f"k{n}": n for n in range(40)}}


def test_the_project_pins_the_pyrsistent_it_was_checked_against() -> None:
    project = tomllib.loads((Path(__file__).parents[1] / "pyproject.toml").read_text())
    [pin] = [
        requirement
        for requirement in map(Requirement, project["project"]["dependencies"])
        if requirement.name == "pyrsistent"
    ]
    # A ceiling: a later minor release may lay maps out otherwise (patch releases may come).
    assert [spec.version for spec in pin.specifier if spec.operator == "<"] == ["0.21"]
    assert version("pyrsistent") in pin.specifier


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
