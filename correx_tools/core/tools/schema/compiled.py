"""Tool parameter schemas compiled once, safely.

`compile_schema` turns a JSON Schema into a `CompiledSchema` at
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

import functools
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any, final

from returns.result import Failure, Result, Success

from ..errors import CorrexError, error_value
from .keywords import (
    Patterns,
    additional_properties_keyword,
    compile_pattern,
    pattern_keyword,
    pattern_properties_keyword,
    quote,
    unique_items,
)
from .refs import LEGACY_ID_DIALECTS, Unresolved, id_keyword, resolve
from .walk import REFERENCES, in_place_cycle, reachable

if TYPE_CHECKING:
    from jsonschema import ValidationError
    from jsonschema.protocols import Validator

# jsonschema (with its metaschemas and referencing) is imported on the first
# compile, not with the package: it is a third of the command's start-up, and
# most commands read stores and never compile a schema.


@functools.cache
def _by_uri() -> dict[str, type[Validator]]:
    """The dialects jsonschema knows, by their metaschema's URI."""
    import jsonschema  # noqa: PLC0415 - loaded with the first schema

    dialects: tuple[type[Validator], ...] = (
        jsonschema.Draft202012Validator,
        jsonschema.Draft201909Validator,
        jsonschema.Draft7Validator,
        jsonschema.Draft6Validator,
        jsonschema.Draft4Validator,
    )
    return {_uri(cls): cls for cls in dialects}


def _latest() -> type[Validator]:
    import jsonschema  # noqa: PLC0415 - loaded with the first schema

    return jsonschema.Draft202012Validator


MAX_SCHEMA_DEPTH = 128


@final
@error_value
class SchemaError(CorrexError):
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


def compile_schema(schema: object, *, formats: bool = False) -> Result[CompiledSchema, SchemaError]:
    """Check ``schema`` and build its validator, or say what is wrong and where.

    ``format`` only annotates by default, as draft 2020-12 says; ``formats=True``
    makes it an assertion, checked by the checkers jsonschema ships (dates,
    times, e-mail and IP addresses, URIs where a checker is installed...),
    none of which touches the network.

    >>> compile_schema({"type": "object"}).unwrap()
    CompiledSchema(dialect='https://json-schema.org/draft/2020-12/schema')
    >>> print(compile_schema({"$ref": "https://example.com/s.json"}).failure())
    $.$ref: non-local $ref 'https://example.com/s.json' is refused: validation never fetches
    """
    if isinstance(schema, bool):
        return Success(CompiledSchema(schema, _latest()(schema), _uri(_latest())))
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
    patterns: Patterns = {}
    problem = _walk(schema, dialect, patterns)
    if problem is not None:
        return Failure(problem)
    import jsonschema  # noqa: PLC0415 - loaded with the first schema
    import referencing  # noqa: PLC0415 - loaded with the first schema

    wrong = jsonschema.exceptions.best_match(_metaschema(dialect).iter_errors(dict(schema)))
    if wrong is not None:
        return Failure(SchemaError(path=wrong.json_path, message=_short(wrong.message)))
    validator_class = jsonschema.validators.extend(  # type: ignore[no-untyped-call]
        dialect,
        validators={
            "pattern": pattern_keyword(patterns),
            "patternProperties": pattern_properties_keyword(patterns),
            "additionalProperties": additional_properties_keyword(patterns),
            "uniqueItems": unique_items,
        },
    )
    checker = dialect.FORMAT_CHECKER if formats else None
    validator = validator_class(schema, registry=referencing.Registry(), format_checker=checker)
    return Success(CompiledSchema(schema, validator, _uri(dialect)))


def _uri(cls: type[Validator]) -> str:
    return str(cls.META_SCHEMA.get("$id", cls.META_SCHEMA.get("id"))).rstrip("#")


def _dialect(schema: Mapping[str, Any]) -> type[Validator] | SchemaError:
    declared = schema.get("$schema")
    if declared is None:
        return _latest()
    if not isinstance(declared, str):
        return SchemaError(path="$.$schema", message="$schema must be a string")
    known_dialects = _by_uri()
    found = known_dialects.get(
        declared.rstrip("#").replace(
            "http://json-schema.org/draft/", "https://json-schema.org/draft/"
        )
    )
    if found is None:
        known = ", ".join(sorted(known_dialects))
        return SchemaError(
            path="$.$schema", message=f"unknown dialect {quote(declared)}; known: {known}"
        )
    return found


def _walk(
    root: Mapping[str, Any], dialect: type[Validator], patterns: Patterns
) -> SchemaError | None:
    """Check every subschema the validator can reach once: depth, refs, ids and patterns."""
    uri = _uri(dialect)
    has_unevaluated = has_pattern_properties = False
    for node, path, depth in reachable(root, uri):
        if depth > MAX_SCHEMA_DEPTH:
            return SchemaError(
                path=_short_path(path),
                message=f"schema nests deeper than the limit of {MAX_SCHEMA_DEPTH}",
            )
        for keyword in REFERENCES:
            if keyword in node:
                problem = _check_ref(root, node[keyword], f"{path}.{keyword}", uri)
                if problem is not None:
                    return problem
        id_word = id_keyword(uri)
        if depth > 0 and id_word in node and not _plain_name(node[id_word], uri):
            return SchemaError(
                path=f"{path}.{id_word}",
                message=f"an embedded {id_word} is not supported; use $defs and local $refs",
            )
        pattern = node.get("pattern")
        if isinstance(pattern, str):
            problem = _pattern_problem(pattern, f"{path}.pattern", patterns)
            if problem is not None:
                return problem
        has_unevaluated = has_unevaluated or "unevaluatedProperties" in node
        pattern_properties = node.get("patternProperties")
        if isinstance(pattern_properties, Mapping):
            has_pattern_properties = True
            for key in pattern_properties:
                problem = _pattern_problem(key, f"{path}.patternProperties", patterns)
                if problem is not None:
                    return problem
    if has_unevaluated and has_pattern_properties:
        return SchemaError(
            path="$",
            message="unevaluatedProperties together with patternProperties is not supported "
            "(those patterns would not run on the linear-time engine)",
        )
    loop = in_place_cycle(root, uri)
    if loop is not None:
        return SchemaError(
            path=loop[0],
            message="these references apply the schema to the same value forever, "
            f"consuming no input: {' -> '.join(loop)}",
        )
    return None


def _plain_name(value: object, dialect: str) -> bool:
    """Whether an embedded ``$id`` is only a plain-name anchor (``#foo``, drafts 4 to 7)."""
    return (
        dialect in LEGACY_ID_DIALECTS
        and isinstance(value, str)
        and value.startswith("#")
        and "/" not in value
    )


def _check_ref(root: Mapping[str, Any], ref: object, path: str, dialect: str) -> SchemaError | None:
    if not isinstance(ref, str):
        return SchemaError(path=path, message="a reference must be a string")
    target = resolve(root, ref, dialect)
    if isinstance(target, Unresolved):
        if target.leaves_document:
            return SchemaError(
                path=path,
                message=f"non-local $ref {quote(ref)} is refused: validation never fetches",
            )
        return SchemaError(path=path, message=f"$ref {quote(ref)}: {target.message}")
    return None


def _pattern_problem(pattern: str, path: str, patterns: Patterns) -> SchemaError | None:
    problem = compile_pattern(pattern, patterns)
    if problem is None:
        return None
    return SchemaError(
        path=path,
        message=f"pattern {quote(pattern)} is not supported by the linear-time regex engine "
        f"({problem})",
    )


def _short_path(path: str, limit: int = 120) -> str:
    """A JSON path cut in its middle when long (a deep schema's would fill a screen)."""
    if len(path) <= limit:
        return path
    return f"{path[: limit // 2]}...{path[-limit // 2 :]}"


_METASCHEMAS: dict[type[Validator], Validator] = {}


def _metaschema(dialect: type[Validator]) -> Validator:
    """The validator of ``dialect``'s metaschema, as ``check_schema`` builds it, except
    that a ``pattern`` is not checked as a Python ``re`` regex: patterns are
    ECMA-262, and each is translated and compiled for RE2 by the schema walk."""
    validator = _METASCHEMAS.get(dialect)
    if validator is None:
        import jsonschema  # noqa: PLC0415 - loaded with the first schema

        formats = jsonschema.FormatChecker()
        formats.checkers = {
            name: check
            for name, check in dialect.FORMAT_CHECKER.checkers.items()
            if name != "regex"
        }
        validator = dialect(dialect.META_SCHEMA, format_checker=formats)
        _METASCHEMAS[dialect] = validator
    return validator


def _json_type(value: object) -> str:
    return type(value).__name__


def _short(message: str, limit: int = 300) -> str:
    return message if len(message) <= limit else message[:limit] + "..."
