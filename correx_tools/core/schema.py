"""Tool parameter schemas compiled once, safely.

:func:`compile_schema` turns a JSON Schema into a :class:`CompiledSchema` at
registration, refusing what could make validation unsafe or slow later:

* a ``$ref`` that is not local to the schema (validation never fetches a URL
  or reads a file; the validator gets an empty ``referencing.Registry()``),
  an embedded ``$id`` (which would move local references elsewhere), and a
  local ``$ref`` that points at nothing;
* a ``pattern`` or ``patternProperties`` key that RE2, a linear-time regex
  engine, can not compile: every pattern runs on RE2, never on ``re``;
* ``unevaluatedProperties`` beside ``patternProperties`` (jsonschema would
  evaluate those patterns with ``re``);
* a schema that is not valid for its dialect, or of an unknown dialect.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass
from typing import Any, final

import jsonschema
import re2
import referencing
from jsonschema import ValidationError
from jsonschema.exceptions import SchemaError as JsonSchemaError
from jsonschema.protocols import Validator
from returns.result import Failure, Result, Success

_DIALECTS: tuple[type[Validator], ...] = (
    jsonschema.Draft202012Validator,
    jsonschema.Draft201909Validator,
    jsonschema.Draft7Validator,
    jsonschema.Draft6Validator,
    jsonschema.Draft4Validator,
)
_BY_URI = {
    str(cls.META_SCHEMA.get("$id", cls.META_SCHEMA.get("id"))).rstrip("#"): cls for cls in _DIALECTS
}

# Keywords whose value is one subschema, a list of them, or a map of them.
_ONE = ("not", "if", "then", "else", "contains", "additionalProperties", "propertyNames",
        "unevaluatedProperties", "unevaluatedItems", "additionalItems")  # fmt: skip
_ONE_OR_LIST = ("items",)
_LIST = ("allOf", "anyOf", "oneOf", "prefixItems")
_MAP = ("properties", "patternProperties", "$defs", "definitions", "dependentSchemas")

MAX_SCHEMA_DEPTH = 128


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class SchemaError:
    """Why a schema was refused, with the JSON path of the offending part."""

    path: str
    message: str

    def __str__(self) -> str:
        return f"{self.path}: {self.message}"


@final
class CompiledSchema:
    """A schema checked once and its validator, ready for many requests."""

    __slots__ = ("_validator", "dialect", "schema")

    def __init__(self, schema: Mapping[str, Any] | bool, validator: Any, dialect: str) -> None:
        self.schema = schema
        self.dialect = dialect
        self._validator = validator

    def iter_errors(self, instance: object) -> Iterator[ValidationError]:
        """The schema's violations for ``instance`` (a plain JSON value)."""
        errors: Iterator[ValidationError] = self._validator.iter_errors(instance)
        return errors

    def __repr__(self) -> str:
        return f"CompiledSchema(dialect={self.dialect!r})"


def compile_schema(schema: object) -> Result[CompiledSchema, SchemaError]:
    """Check ``schema`` and build its validator, or say what is wrong and where.

    >>> compile_schema({"type": "object"}).unwrap()
    CompiledSchema(dialect='https://json-schema.org/draft/2020-12/schema')
    >>> print(compile_schema({"$ref": "https://example.com/s.json"}).failure())
    $.$ref: non-local $ref 'https://example.com/s.json' is refused: validation never fetches
    """
    if isinstance(schema, bool):
        return Success(
            CompiledSchema(
                schema,
                jsonschema.Draft202012Validator(schema),
                _uri(jsonschema.Draft202012Validator),
            )
        )
    if not isinstance(schema, Mapping):
        return Failure(
            SchemaError(
                path="$",
                message=f"a schema must be an object or a boolean, not {_json_type(schema)}",
            )
        )
    dialect = _dialect(schema)
    if isinstance(dialect, SchemaError):
        return Failure(dialect)
    patterns: dict[str, re2._Regexp[str]] = {}
    problem = _walk(schema, patterns)
    if problem is not None:
        return Failure(problem)
    try:
        dialect.check_schema(dict(schema))
    except JsonSchemaError as error:
        return Failure(SchemaError(path=_schema_path(error), message=_short(error.message)))
    validator_class = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        dialect,
        validators={
            "pattern": _pattern_keyword(patterns),
            "patternProperties": _pattern_properties_keyword(patterns),
            "additionalProperties": _additional_properties_keyword(patterns),
        },
    )
    validator = validator_class(schema, registry=referencing.Registry())
    return Success(CompiledSchema(schema, validator, _uri(dialect)))


def _uri(cls: type[Validator]) -> str:
    return str(cls.META_SCHEMA.get("$id", cls.META_SCHEMA.get("id"))).rstrip("#")


def _dialect(schema: Mapping[str, Any]) -> type[Validator] | SchemaError:
    declared = schema.get("$schema")
    if declared is None:
        return jsonschema.Draft202012Validator
    if not isinstance(declared, str):
        return SchemaError(path="$.$schema", message="$schema must be a string")
    found = _BY_URI.get(
        declared.rstrip("#").replace(
            "http://json-schema.org/draft/", "https://json-schema.org/draft/"
        )
    )
    if found is None:
        known = ", ".join(sorted(_BY_URI))
        return SchemaError(
            path="$.$schema", message=f"unknown dialect {_quote(declared)}; known: {known}"
        )
    return found


def subschemas(root: Mapping[str, Any]) -> Iterator[tuple[Mapping[str, Any], str, int]]:
    """Every subschema of ``root`` with its JSON path and depth, iteratively, root first.

    >>> [path for _, path, _ in subschemas({"properties": {"a": {"items": {}}}})]
    ['$', '$.properties.a', '$.properties.a.items']
    """
    stack: list[tuple[object, str, int]] = [(root, "$", 0)]
    while stack:
        node, path, depth = stack.pop()
        if not isinstance(node, Mapping):
            continue
        yield node, path, depth
        children: list[tuple[object, str, int]] = []
        for keyword in _ONE:
            if keyword in node:
                children.append((node[keyword], f"{path}.{keyword}", depth + 1))
        for keyword in _ONE_OR_LIST + _LIST:
            value = node.get(keyword)
            if isinstance(value, list):
                children.extend(
                    (item, f"{path}.{keyword}[{i}]", depth + 1) for i, item in enumerate(value)
                )
            elif value is not None:
                children.append((value, f"{path}.{keyword}", depth + 1))
        for keyword in _MAP:
            value = node.get(keyword)
            if isinstance(value, Mapping):
                children.extend(
                    (sub, f"{path}.{keyword}{_member(key)}", depth + 1)
                    for key, sub in value.items()
                )
        stack.extend(reversed(children))


def _walk(root: Mapping[str, Any], patterns: dict[str, Any]) -> SchemaError | None:
    """Visit every subschema once, checking depth, refs, ids and patterns."""
    has_unevaluated = has_pattern_properties = False
    for node, path, depth in subschemas(root):
        if depth > MAX_SCHEMA_DEPTH:
            return SchemaError(
                path=path, message=f"schema nests deeper than the limit of {MAX_SCHEMA_DEPTH}"
            )
        for keyword in ("$ref", "$dynamicRef", "$recursiveRef"):
            if keyword in node:
                problem = _check_ref(root, node[keyword], f"{path}.{keyword}")
                if problem is not None:
                    return problem
        if depth > 0 and "$id" in node:
            return SchemaError(
                path=f"{path}.$id",
                message="an embedded $id is not supported; use $defs and local $refs",
            )
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            problem = _compile_pattern(pattern, f"{path}.pattern", patterns)
            if problem is not None:
                return problem
        has_unevaluated = has_unevaluated or "unevaluatedProperties" in node
        pattern_properties = node.get("patternProperties")
        if isinstance(pattern_properties, Mapping):
            has_pattern_properties = True
            for key in pattern_properties:
                problem = _compile_pattern(key, f"{path}.patternProperties", patterns)
                if problem is not None:
                    return problem
    if has_unevaluated and has_pattern_properties:
        return SchemaError(
            path="$",
            message="unevaluatedProperties together with patternProperties is not supported "
            "(those patterns would not run on the linear-time engine)",
        )
    return None


def _check_ref(root: Mapping[str, Any], ref: object, path: str) -> SchemaError | None:
    if not isinstance(ref, str):
        return SchemaError(path=path, message="a reference must be a string")
    if not ref.startswith("#"):
        return SchemaError(
            path=path, message=f"non-local $ref {_quote(ref)} is refused: validation never fetches"
        )
    fragment = ref[1:]
    if fragment == "":
        return None
    if not fragment.startswith("/"):
        return (
            None
            if _has_anchor(root, fragment)
            else SchemaError(path=path, message=f"no $anchor named {_quote(fragment)}")
        )
    node: object = root
    for raw in fragment[1:].split("/"):
        token = raw.replace("~1", "/").replace("~0", "~")
        if isinstance(node, Mapping) and token in node:
            node = node[token]
        elif isinstance(node, list) and token.isdigit() and int(token) < len(node):
            node = node[int(token)]
        else:
            return SchemaError(
                path=path, message=f"$ref {_quote(ref)} points at nothing in this schema"
            )
    return None


def _has_anchor(root: Mapping[str, Any], name: str) -> bool:
    stack: list[object] = [root]
    while stack:
        node = stack.pop()
        if isinstance(node, Mapping):
            if node.get("$anchor") == name or node.get("$dynamicAnchor") == name:
                return True
            stack.extend(node.values())
        elif isinstance(node, list):
            stack.extend(node)
    return False


def _compile_pattern(pattern: str, path: str, patterns: dict[str, Any]) -> SchemaError | None:
    if pattern in patterns:
        return None
    options = re2.Options()
    options.log_errors = False
    try:
        patterns[pattern] = re2.compile(pattern, options)
    except re2.error as error:
        reason = error.args[0] if error.args else error
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        return SchemaError(
            path=path,
            message=f"pattern {_quote(pattern)} is not supported by the linear-time regex engine "
            f"({reason})",
        )
    return None


def _pattern_keyword(patterns: Mapping[str, Any]) -> Any:
    def pattern(
        validator: Any, expected: str, instance: object, schema: object
    ) -> Iterator[ValidationError]:
        if isinstance(instance, str) and patterns[expected].search(instance) is None:
            yield ValidationError(f"{_quote(instance)} does not match {_quote(expected)}")

    return pattern


def _pattern_properties_keyword(patterns: Mapping[str, Any]) -> Any:
    def pattern_properties(
        validator: Any, expected: Mapping[str, Any], instance: object, schema: object
    ) -> Iterator[ValidationError]:
        if not isinstance(instance, dict):
            return
        for pattern, subschema in expected.items():
            regex = patterns[pattern]
            for key, value in instance.items():
                if regex.search(key) is not None:
                    yield from validator.descend(value, subschema, path=key, schema_path=pattern)

    return pattern_properties


def _additional_properties_keyword(patterns: Mapping[str, Any]) -> Any:
    def additional_properties(
        validator: Any, expected: object, instance: object, schema: Mapping[str, Any]
    ) -> Iterator[ValidationError]:
        if not isinstance(instance, dict):
            return
        declared = schema.get("properties", {})
        regexes = [patterns[p] for p in schema.get("patternProperties", {})]
        extras = [
            key
            for key in instance
            if key not in declared and not any(r.search(key) is not None for r in regexes)
        ]
        if isinstance(expected, Mapping):
            for key in extras:
                yield from validator.descend(instance[key], expected, path=key)
        elif expected is False and extras:
            named = ", ".join(_quote(key) for key in sorted(extras)[:5])
            more = f" and {len(extras) - 5} more" if len(extras) > 5 else ""
            yield ValidationError(f"additional properties are not allowed ({named}{more})")

    return additional_properties


def _schema_path(error: JsonSchemaError) -> str:
    # The error is about the schema as an instance of its metaschema.
    return error.json_path


def _member(key: str) -> str:
    return f".{key}" if key.isidentifier() else f"[{_quote(key)}]"


def _json_type(value: object) -> str:
    return type(value).__name__


def _quote(value: str, limit: int = 60) -> str:
    """``repr`` of a string cut to ``limit`` characters, so messages stay short."""
    if len(value) <= limit:
        return repr(value)
    return repr(value[:limit]) + f"... ({len(value)} chars)"


def _short(message: str, limit: int = 300) -> str:
    return message if len(message) <= limit else message[:limit] + "..."
