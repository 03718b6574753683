"""JSON payloads kept frozen inside values and thawed at the boundary.

Tool arguments and outputs are JSON. Inside the core they are stored frozen
(objects as ``PMap``, arrays as ``PVector``) so that a value never changes
under the records that hold it; `thaw_json` gives plain ``dict`` and
``list`` back for JSON encoders and schema validators.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Mapping
from typing import Any, TypeAlias

from pyrsistent import PMap, PVector, pvector

from ._lean_map import lean_pmap

FrozenJson: TypeAlias = (
    "PMap[str, FrozenJson] | PVector[FrozenJson] | str | int | float | bool | None"
)
"""A JSON value whose objects and arrays are pyrsistent collections."""


def freeze_json(value: object) -> Any:
    """Return ``value`` with every ``dict`` made a ``PMap`` and every ``list`` a ``PVector``.

    Iterative, so a deeply nested value never raises ``RecursionError``
    (validation then reports its depth as a limit).

    >>> freeze_json({"paths": ["a", "b"]})
    pmap({'paths': pvector(['a', 'b'])})
    """
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is dict:
        # The decoders' case: a plain object of scalars, the common shape of arguments.
        # Exact type checks: isinstance against PVector (an ABC) runs Python code.
        for item in value.values():  # type: ignore[attr-defined]
            if type(item) not in _SCALARS:
                break
        else:
            return lean_pmap(value)  # type: ignore[arg-type]  # a dict, as checked
    if not isinstance(value, dict | list | tuple | PMap | PVector):
        return value
    # One level of scalars.
    items = value.values() if isinstance(value, dict | PMap) else value
    for item in items:
        if isinstance(item, _CONTAINERS):
            break
    else:
        return lean_pmap(value) if isinstance(value, dict | PMap) else pvector(value)
    return _rebuild(value, lean_pmap, pvector)


def _rebuild(
    value: object,
    make_object: Callable[[dict[str, Any]], Any],
    make_array: Callable[[list[Any]], Any],
) -> Any:
    """``value`` with every object and array rebuilt by ``make_object``/``make_array``.

    Post-order over the containers, children before their parent, on a stack of
    our own: any depth, no ``RecursionError``.
    """
    done: dict[int, Any] = {}
    stack: list[tuple[Any, bool]] = [(value, False)]
    while stack:
        node, children_ready = stack.pop()
        if not children_ready:
            stack.append((node, True))
            items = node.values() if isinstance(node, dict | PMap) else node
            stack.extend(
                (item, False) for item in items if _is_container(item) and id(item) not in done
            )
            continue
        if isinstance(node, dict | PMap):
            # A PMap's order is its keys' hashes', which change with PYTHONHASHSEED.
            pairs = sorted(node.items()) if type(node) is PMap else node.items()
            done[id(node)] = make_object(
                {k: done[id(v)] if _is_container(v) else v for k, v in pairs}
            )
        else:
            done[id(node)] = make_array([done[id(v)] if _is_container(v) else v for v in node])
    return done[id(value)]


_CONTAINERS = (dict, list, tuple, PMap, PVector)
_SCALARS = frozenset({str, int, float, bool, type(None)})
_PVECTOR: type[Any] = type(pvector())  # the C vector pvector() builds


def _is_container(value: object) -> bool:
    return isinstance(value, _CONTAINERS)


def freeze_object(value: Mapping[str, object]) -> PMap[str, Any]:
    """Freeze a JSON object; a ``PMap`` already holding no ``dict``, ``list`` or ``set`` is kept."""
    if type(value) is dict:
        frozen_dict: PMap[str, Any] = freeze_json(value)
        return frozen_dict
    if isinstance(value, PMap) and all(
        not isinstance(item, dict | list | set) for item in value.values()
    ):
        return value
    if not isinstance(value, Mapping):
        raise TypeError(f"a JSON object must be a mapping, not {type(value).__name__}")
    frozen: PMap[str, Any] = freeze_json(value if isinstance(value, dict | PMap) else dict(value))
    return frozen


def string_map(value: Mapping[str, str]) -> PMap[str, str]:
    """``value`` as a ``PMap`` of strings; anything else is a ``TypeError``."""
    frozen = value if isinstance(value, PMap) else lean_pmap(value)
    for key, item in frozen.items():
        if not isinstance(key, str) or not isinstance(item, str):
            raise TypeError(f"metadata must map str to str, got {key!r}: {item!r}")
    return frozen


def thaw_json(value: object) -> Any:
    """Return a frozen JSON value as plain ``dict``/``list`` values.

    Iterative, like `freeze_json`: a value nested thousands deep thaws
    without a ``RecursionError`` (the limits that refuse it run afterwards).
    A frozen object's keys come out in code point order, whatever the hash
    seed, so what is printed from a thawed value is the same from run to run.

    >>> thaw_json(freeze_json({"n": [1, 2]}))
    {'n': [1, 2]}
    """
    kind = type(value)
    if kind in _SCALARS:
        return value
    if kind is PMap:
        # The common shape of arguments: one object of scalars and lists of scalars.
        plain: dict[str, Any] = {}
        for key, item in sorted(value.items()):  # type: ignore[attr-defined]
            if type(item) in _SCALARS:
                plain[key] = item
            elif type(item) is _PVECTOR and all(type(inner) in _SCALARS for inner in item):
                plain[key] = list(item)
            else:
                break
        else:
            return plain
    if not isinstance(value, _CONTAINERS):
        return value
    return _rebuild(value, _same, _same)


def _same(value: Any) -> Any:
    return value


def values_at(
    text: str, paths: tuple[tuple[str, ...], ...], defaults: tuple[object, ...]
) -> tuple[Any, ...]:
    """The frozen JSON value at each of ``paths`` in JSON ``text``, parsed once; the path's
    default where a key is missing (see `value_at`).

    >>> values_at('{"a":{"b":[1],"c":2}}', (("a", "b"), ("a", "d")), (None, 0))
    (pvector([1]), 0)
    """
    root: Any = json.loads(text)
    found = []
    for keys, default in zip(paths, defaults, strict=True):
        node = root
        for key in keys:
            if not isinstance(node, dict) or key not in node:
                node = _MISSING
                break
            node = node[key]
        found.append(default if node is _MISSING else freeze_json(node))
    return tuple(found)


_MISSING = object()


def value_at(text: str, keys: tuple[str, ...], default: object = None) -> Any:
    """The frozen JSON value at ``keys`` in JSON ``text``; ``default`` where a key is missing.

    For values a store wrote as canonical JSON after checking them, decoded
    only when first used (see `lazy_request`).

    >>> value_at('{"receipt":{"output":[1,2]}}', ("receipt", "output"))
    pvector([1, 2])
    """
    node: Any = json.loads(text)
    for key in keys:
        if not isinstance(node, dict) or key not in node:
            return default
        node = node[key]
    return freeze_json(node)


def lone_surrogate_at(text: str) -> int | None:
    """The index of the first lone surrogate in ``text``, or ``None`` if it is Unicode text.

    A lone surrogate (``"\\ud800"``) can live in a Python ``str`` but is not
    text: no encoder, file or database can keep it.

    >>> lone_surrogate_at("ok"), lone_surrogate_at("a\\ud800")
    (None, 1)
    """
    if text.isascii():
        return None
    for index, character in enumerate(text):
        if "\ud800" <= character <= "\udfff":
            return index
    return None
