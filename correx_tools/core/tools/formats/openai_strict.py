"""OpenAI's strict mode: which schemas it takes, and rewriting one into that subset.

Strict mode (Structured Outputs) makes the model's arguments follow the
schema exactly, but takes only a subset of JSON Schema: every object lists
all its properties as required and forbids others, and only some keywords
may appear. An optional property is expressed as a required one that may be
``null``. The rewrite here does exactly that and nothing looser: a keyword
that constrains values and is outside the subset is a refusal naming it and
its place, never silently dropped. Keywords that only annotate (``default``,
``examples``, ``$comment``...) are left out, since strict mode refuses them
and they constrain nothing.

The registry still validates each call against the tool's own schema. A
model in strict mode writes ``null`` for an optional property it would have
left out, which the tool's schema may not allow: `without_strict_nulls`
removes those before the call is validated.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..json_values import thaw_json

STRICT_KEYWORDS = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "enum", "const",
        "anyOf", "$ref", "$defs", "description", "title", "pattern", "format", "minimum",
        "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
    }
)  # fmt: skip
"""The keywords OpenAI's strict mode accepts in a function's schema."""

ANNOTATIONS = frozenset(
    {"default", "examples", "$comment", "deprecated", "readOnly", "writeOnly", "$schema", "$id"}
)
"""Keywords that describe and constrain nothing: left out of a strict rewrite."""


class NotStrict(Exception):
    """Why a schema cannot be written in strict mode's subset, and where."""

    def __init__(self, path: str, message: str) -> None:
        super().__init__(f"{path}: {message}")
        self.path = path
        self.message = message


def root_problem(schema: Mapping[str, Any]) -> tuple[str, str] | None:
    """Why OpenAI refuses ``schema`` as a function's parameters at all, or ``None``.

    The root must be a plain object schema: not nullable, not a union.

    >>> root_problem({"type": ["object", "null"]})
    ('$.type', 'a function\\'s parameters must be of type "object" alone')
    """
    declared = schema.get("type", "object")
    if declared != "object":
        return "$.type", 'a function\'s parameters must be of type "object" alone'
    for keyword in ("anyOf", "oneOf", "allOf", "not", "enum", "const"):
        if keyword in schema:
            return f"$.{keyword}", f"a function's parameters cannot be a {keyword} at the root"
    return None


def fits_strict(schema: Mapping[str, Any]) -> bool:
    """Whether strict mode accepts ``schema`` exactly as it is.

    >>> fits_strict({"type": "object", "properties": {"a": {"type": "string"}}})
    False
    """
    try:
        return strict_schema(schema) == schema
    except NotStrict:
        return False


def strict_schema(schema: Mapping[str, Any]) -> dict[str, Any]:
    """``schema`` rewritten into strict mode's subset; raises `NotStrict` naming the reason.

    >>> strict = strict_schema({"type": "object", "properties": {"n": {"type": "integer"}}})
    >>> strict["properties"], strict["required"], strict["additionalProperties"]
    ({'n': {'type': ['integer', 'null']}}, ['n'], False)
    """
    problem = root_problem(schema)
    if problem is not None:
        raise NotStrict(*problem)
    written: dict[str, Any] = _node(schema, "$")
    return written


def _node(node: object, path: str) -> Any:
    """One subschema, rewritten."""
    if not isinstance(node, Mapping):
        raise NotStrict(path, "strict mode needs an object schema here, not a boolean")
    written: dict[str, Any] = {}
    for keyword, value in node.items():
        if keyword in ANNOTATIONS:
            continue
        if keyword not in STRICT_KEYWORDS:
            raise NotStrict(f"{path}.{keyword}", f"strict mode does not support {keyword}")
        written[keyword] = _keyword(keyword, value, f"{path}.{keyword}")
    if written.get("type") == "object" or "properties" in written:
        _close_object(written, path)
    return written


def _keyword(keyword: str, value: Any, path: str) -> Any:
    """A keyword's value with its subschemas rewritten."""
    if keyword in ("properties", "$defs") and isinstance(value, Mapping):
        return {name: _node(sub, f"{path}.{name}") for name, sub in value.items()}
    if keyword == "items":
        return _node(value, path)
    if keyword == "anyOf" and isinstance(value, list):
        return [_node(sub, f"{path}[{index}]") for index, sub in enumerate(value)]
    return value


def _close_object(node: dict[str, Any], path: str) -> None:
    """Every property required (the optional ones nullable), no others allowed."""
    extra = node.get("additionalProperties", False)
    if extra is not False:
        raise NotStrict(
            f"{path}.additionalProperties",
            "strict mode forbids properties beyond those listed, and this object allows them",
        )
    properties: dict[str, Any] = dict(node.get("properties", {}))
    required = list(node.get("required", []))
    for name, schema in list(properties.items()):
        if name not in required:
            properties[name] = _nullable(schema)
            required.append(name)
    if properties or "properties" in node:
        node["properties"] = properties
    if required or "required" in node:
        node["required"] = required
    node["additionalProperties"] = False


def _nullable(schema: dict[str, Any]) -> dict[str, Any]:
    """``schema`` that also admits ``null`` (how strict mode says "optional")."""
    declared = schema.get("type")
    if isinstance(declared, str | list) and "anyOf" not in schema:
        kinds = [declared] if isinstance(declared, str) else list(declared)
        widened = {**schema, "type": kinds if "null" in kinds else [*kinds, "null"]}
        if "enum" in schema and None not in schema["enum"]:
            widened["enum"] = [*schema["enum"], None]
        return widened
    if "anyOf" in schema and len(schema) == 1:
        alternatives = list(schema["anyOf"])
        if {"type": "null"} not in alternatives:
            alternatives.append({"type": "null"})
        return {"anyOf": alternatives}
    return {"anyOf": [schema, {"type": "null"}]}


def without_strict_nulls(schema: Mapping[str, Any], arguments: Any) -> Any:
    """The arguments a model wrote against `strict_schema` of ``schema``, with the
    ``null`` of each optional property it left out removed: what ``schema`` expects.

    A ``null`` stays where ``schema`` itself allows one, and for required
    properties (there it is the model's answer, right or wrong). Objects in
    arrays, in ``$defs`` through a local ``$ref``, and in the ``anyOf`` branch of
    the value's type are cleaned too. Takes plain or frozen JSON; returns plain.

    >>> schema = {"type": "object", "properties": {"path": {"type": "string"},
    ...           "limit": {"type": "integer"}}, "required": ["path"]}
    >>> without_strict_nulls(schema, {"path": "a.txt", "limit": None})
    {'path': 'a.txt'}
    """
    return _clean(schema, schema, thaw_json(arguments), 0)


def _clean(root: Mapping[str, Any], node: object, value: Any, depth: int) -> Any:
    node = _resolved(root, node)
    if not isinstance(node, Mapping) or depth > _MAX_DEPTH:
        return value
    if isinstance(value, dict) and isinstance(node.get("properties"), Mapping):
        properties, required = node["properties"], set(node.get("required", ()))
        return {
            key: _clean(root, properties.get(key), item, depth + 1)
            for key, item in value.items()
            if not (
                item is None
                and key in properties
                and key not in required
                and not _admits_null(root, properties[key])
            )
        }
    if isinstance(value, list) and isinstance(node.get("items"), Mapping):
        return [_clean(root, node["items"], item, depth + 1) for item in value]
    branch = _branch_for(root, node.get("anyOf"), value)
    if branch is not None:
        return _clean(root, branch, value, depth + 1)
    return value


def _resolved(root: Mapping[str, Any], node: object) -> object:
    """``node``, or what its local ``$ref`` (``#/$defs/...``) names, followed a few times."""
    for _ in range(_MAX_DEPTH):
        if not isinstance(node, Mapping) or not isinstance(node.get("$ref"), str):
            return node
        reference: str = node["$ref"]
        if not reference.startswith("#/"):
            return node
        target: object = root
        for escaped in reference[2:].split("/"):
            part = escaped.replace("~1", "/").replace("~0", "~")
            target = target.get(part) if isinstance(target, Mapping) else None
        node = target
    return node


def _admits_null(root: Mapping[str, Any], node: object) -> bool:
    """Whether the tool's own schema for a property lets it be ``null``."""
    node = _resolved(root, node)
    if node is True or (isinstance(node, Mapping) and not node):
        return True
    if not isinstance(node, Mapping):
        return False
    declared = node.get("type")
    if declared == "null" or (isinstance(declared, list) and "null" in declared):
        return True
    if "enum" in node and None in node["enum"]:
        return True
    if "const" in node and node["const"] is None:
        return True
    alternatives = node.get("anyOf") or node.get("oneOf") or ()
    return any(_admits_null(root, sub) for sub in alternatives)


_JSON_TYPES = {dict: "object", list: "array", str: "string", bool: "boolean"}


def _branch_for(root: Mapping[str, Any], alternatives: object, value: Any) -> object:
    """The first ``anyOf`` alternative that declares the value's JSON type, if any."""
    if not isinstance(alternatives, list):
        return None
    kind = _JSON_TYPES.get(type(value))
    for alternative in alternatives:
        declared = _resolved(root, alternative)
        if isinstance(declared, Mapping) and kind is not None and declared.get("type") == kind:
            return declared
    return None


_MAX_DEPTH = 64
