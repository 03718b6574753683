"""Walking a schema: every subschema the validator can reach, and the loops it could run.

`reachable` visits each subschema once: those under the schema
keywords, and every place a local reference points at, even one outside
them (``#/$defs/d/default``), so that `compile_schema` can
check each one (depth, patterns, ``$id``). `in_place_cycle` finds a
loop of references and in-place applicators (``allOf``, ``not``, ``if``...)
that consumes no input: jsonschema would follow it until Python's recursion
limit, so such a schema is refused at registration.

Both are iterative: a schema nested thousands deep never raises
``RecursionError`` here.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any
from urllib.parse import unquote

from .refs import Unresolved, resolve

# Keywords whose value is one subschema, a list of them, or a map of them.
_ONE = ("not", "if", "then", "else", "contains", "additionalProperties", "propertyNames",
        "unevaluatedProperties", "unevaluatedItems", "additionalItems")  # fmt: skip
_ONE_OR_LIST = ("items",)
_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")
# Draft 4 to 7: each value a subschema, or a list of property names.
_SCHEMA_OR_NAMES = ("dependencies",)

# The applicators that apply a subschema to the same instance (consuming nothing).
_IN_PLACE_ONE = ("not", "if", "then", "else")
_IN_PLACE_LIST = ("allOf", "anyOf", "oneOf")
_IN_PLACE_MAP = ("dependentSchemas", "dependencies")
REFERENCES = ("$ref", "$dynamicRef", "$recursiveRef")
"""The keywords whose value is a reference."""

Node = tuple[Mapping[str, Any], str, int]
"""A subschema, its JSON path in the document, and its depth."""


def subschemas(root: Mapping[str, Any]) -> Iterator[Node]:
    """Every subschema under ``root``'s schema keywords, with its JSON path and depth.

    >>> [path for _, path, _ in subschemas({"properties": {"a": {"items": {}}}})]
    ['$', '$.properties.a', '$.properties.a.items']
    """
    stack: list[tuple[object, str, int]] = [(root, "$", 0)]
    while stack:
        node, path, depth = stack.pop()
        if not isinstance(node, Mapping):
            continue
        yield node, path, depth
        stack.extend(reversed(list(_children(node, path, depth))))


def _children(node: Mapping[str, Any], path: str, depth: int) -> Iterator[tuple[object, str, int]]:
    for keyword in _ONE:
        if keyword in node:
            yield node[keyword], f"{path}.{keyword}", depth + 1
    for keyword in _ONE_OR_LIST + _LIST:
        value = node.get(keyword)
        if isinstance(value, list):
            for i, item in enumerate(value):
                yield item, f"{path}.{keyword}[{i}]", depth + 1
        elif value is not None:
            yield value, f"{path}.{keyword}", depth + 1
    for keyword in _MAP + _SCHEMA_OR_NAMES:
        value = node.get(keyword)
        if isinstance(value, Mapping):
            for key, sub in value.items():
                if isinstance(sub, Mapping | bool):
                    yield sub, f"{path}.{keyword}{member(key)}", depth + 1


def reachable(root: Mapping[str, Any], dialect: str) -> Iterator[Node]:
    """`subschemas` of ``root``, then of every place a reference points at.

    Each node is visited once, whichever way it is reached first. A reference
    that resolves to nothing is left to the caller's own check.
    """
    seen: set[int] = set()
    pending: list[tuple[Mapping[str, Any], str, int]] = [(root, "$", 0)]
    while pending:
        start, start_path, start_depth = pending.pop()
        for node, path, depth in subschemas(start):
            if id(node) in seen:
                continue
            seen.add(id(node))
            yield node, _joined(start_path, path), start_depth + depth
            for keyword in REFERENCES:
                ref = node.get(keyword)
                if isinstance(ref, str):
                    target = resolve(root, ref, dialect)
                    if isinstance(target, Mapping) and id(target) not in seen:
                        pending.append((target, _ref_path(ref, f"{path}.{keyword}"), 0))


def in_place_cycle(root: Mapping[str, Any], dialect: str) -> list[str] | None:
    """The JSON paths of a loop that applies schemas to one instance forever, if there is one.

    >>> defs = {"a": {"$ref": "#/$defs/b"}, "b": {"allOf": [{"$ref": "#/$defs/a"}]}}
    >>> in_place_cycle({"$defs": defs, "$ref": "#/$defs/a"}, "")
    ['$.$defs.a', '$.$defs.b', '$.$defs.b.allOf[0]', '$.$defs.a']
    """
    paths: dict[int, str] = {}
    nodes: dict[int, Mapping[str, Any]] = {}
    for node, path, _ in reachable(root, dialect):
        paths.setdefault(id(node), path)
        nodes[id(node)] = node
    # Iterative depth-first search; grey nodes are on the current path.
    state: dict[int, int] = {}
    for start, start_node in nodes.items():
        if start in state:
            continue
        trail: list[int] = []
        stack: list[tuple[int, Iterator[int]]] = [(start, _in_place(start_node, root, dialect))]
        state[start] = _GREY
        trail.append(start)
        while stack:
            current, successors = stack[-1]
            following = next(successors, None)
            if following is None:
                stack.pop()
                trail.pop()
                state[current] = _BLACK
                continue
            if following not in nodes:
                continue
            if state.get(following) == _GREY:
                loop = trail[trail.index(following) :] + [following]
                return [paths[n] for n in loop]
            if following not in state:
                state[following] = _GREY
                trail.append(following)
                stack.append((following, _in_place(nodes[following], root, dialect)))
    return None


_GREY, _BLACK = 1, 2


def _in_place(node: Mapping[str, Any], root: Mapping[str, Any], dialect: str) -> Iterator[int]:
    """The ids of the schemas ``node`` applies to its own instance."""
    for keyword in REFERENCES:
        ref = node.get(keyword)
        if isinstance(ref, str):
            target = resolve(root, ref, dialect)
            if not isinstance(target, Unresolved):
                yield id(target)
    for keyword in _IN_PLACE_ONE:
        if isinstance(node.get(keyword), Mapping):
            yield id(node[keyword])
    for keyword in _IN_PLACE_LIST:
        value = node.get(keyword)
        if isinstance(value, list):
            yield from (id(item) for item in value if isinstance(item, Mapping))
    for keyword in _IN_PLACE_MAP:
        value = node.get(keyword)
        if isinstance(value, Mapping):
            yield from (id(item) for item in value.values() if isinstance(item, Mapping))


def member(key: str) -> str:
    """A JSON path step for an object member: ``.name``, or ``['odd name']``."""
    return f".{key}" if key.isidentifier() else f"[{key[:60]!r}]"


def _joined(base: str, path: str) -> str:
    return base + path[1:]


def _ref_path(ref: str, fallback: str) -> str:
    """The JSON path a ``#/...`` pointer names (``$.$defs.d``), or ``fallback``."""
    if not ref.startswith("#/"):
        return fallback
    tokens = [unquote(t).replace("~1", "/").replace("~0", "~") for t in ref[2:].split("/")]
    return "$" + "".join(member(t) for t in tokens)
