"""The keywords this library validates itself: patterns on RE2, and ``uniqueItems`` in one pass.

jsonschema evaluates ``pattern`` and ``patternProperties`` with Python's
``re`` (backtracking: a hostile pattern can stall it) and checks
``uniqueItems`` by comparing every pair of items (2,000 small objects took
18 s). Here patterns run on RE2, compiled once at registration, and
``uniqueItems`` hashes a canonical form of each item, so both stay linear in
the size of the instance. The results are those of the keywords' definitions;
``tests/test_validation.py`` and the generated-arguments tests compare them
with jsonschema's own.
"""

from __future__ import annotations

import importlib
from collections.abc import Iterator, Mapping
from typing import TYPE_CHECKING, Any

import re2

from .ecma import Unsupported, ecma_to_re2
from .messages import json_text

if TYPE_CHECKING:
    from jsonschema import ValidationError

Patterns = dict[str, Any]
"""Each pattern of a schema, compiled for RE2 (``re2._Regexp``), by its source text."""


def compile_pattern(pattern: str, patterns: Patterns) -> str | None:
    """Compile ``pattern`` (ECMA-262, translated for RE2) into ``patterns``; why it
    is refused, if it is."""
    if pattern in patterns:
        return None
    options = re2.Options()
    options.log_errors = False
    try:
        patterns[pattern] = re2.compile(ecma_to_re2(pattern), options)
    except Unsupported as error:
        return str(error)
    except re2.error as error:
        reason = error.args[0] if error.args else error
        if isinstance(reason, bytes):
            reason = reason.decode("utf-8", "replace")
        return str(reason)
    return None


def finds(regex: Any, text: str) -> bool:
    """Whether ``regex`` (compiled for RE2) matches somewhere in ``text``.

    The binding's ``search`` builds a match object and maps byte offsets back to
    characters (about 6 µs a call); a schema check needs only a yes or no, which
    RE2's own ``Match`` on the UTF-8 text gives in about 1 µs. The binding's
    ``search`` remains the definition: `_search_by_binding` is used where the
    inner object is not there, and a test holds the two to each other.
    """
    inner = getattr(regex, "_regexp", None)
    if inner is None or _UNANCHORED is None:
        return _search_by_binding(regex, text)
    encoded = text.encode("utf-8")
    spans = inner.Match(_UNANCHORED, encoded, 0, len(encoded))
    return bool(spans[0][0] != -1)


def _search_by_binding(regex: Any, text: str) -> bool:
    return regex.search(text) is not None


def _unanchored() -> Any:
    try:  # the binding's compiled module, if this version has one
        return importlib.import_module("re2._re2").RE2.Anchor.UNANCHORED
    except (ImportError, AttributeError):
        return None


_UNANCHORED = _unanchored()


def _regex(patterns: Patterns, pattern: str) -> Any:
    # Every pattern the validator can reach was compiled at registration
    # (schema_walk.reachable); compiling here too keeps a miss on RE2, never on re.
    regex = patterns.get(pattern)
    if regex is None:
        problem = compile_pattern(pattern, patterns)
        if problem is not None:
            raise ValueError(f"pattern {pattern[:60]!r} is not supported: {problem}")
        regex = patterns[pattern]
    return regex


def pattern_keyword(patterns: Patterns) -> Any:
    """``pattern``, on RE2."""

    def pattern(
        validator: Any, expected: str, instance: object, schema: object
    ) -> Iterator[ValidationError]:
        if isinstance(instance, str) and not finds(_regex(patterns, expected), instance):
            yield _violation(f"{quote(instance)} does not match {quote(expected)}")

    return pattern


def pattern_properties_keyword(patterns: Patterns) -> Any:
    """``patternProperties``, on RE2."""

    def pattern_properties(
        validator: Any, expected: Mapping[str, Any], instance: object, schema: object
    ) -> Iterator[ValidationError]:
        if not isinstance(instance, dict):
            return
        for pattern, subschema in expected.items():
            regex = _regex(patterns, pattern)
            for key, value in instance.items():
                if finds(regex, key):
                    yield from validator.descend(value, subschema, path=key, schema_path=pattern)

    return pattern_properties


def additional_properties_keyword(patterns: Patterns) -> Any:
    """``additionalProperties``, with ``patternProperties`` matched on RE2."""

    def additional_properties(
        validator: Any, expected: object, instance: object, schema: Mapping[str, Any]
    ) -> Iterator[ValidationError]:
        if not isinstance(instance, dict):
            return
        declared = schema.get("properties", {})
        regexes = [_regex(patterns, p) for p in schema.get("patternProperties", {})]
        extras = [
            key
            for key in instance
            if key not in declared and not any(finds(r, key) for r in regexes)
        ]
        if isinstance(expected, Mapping):
            for key in extras:
                yield from validator.descend(instance[key], expected, path=key)
        elif expected is False and extras:
            named = ", ".join(json_text(key) for key in sorted(extras)[:5])
            more = f" and {len(extras) - 5} more" if len(extras) > 5 else ""
            noun = "property" if len(extras) == 1 else "properties"
            yield _violation(f"unexpected {noun} {named}{more}")

    return additional_properties


def unique_items(
    validator: Any, unique: object, instance: object, schema: object
) -> Iterator[ValidationError]:
    """``uniqueItems``: one pass over the items, each hashed in a canonical form."""
    if unique is not True or not isinstance(instance, list):
        return
    first: dict[object, int] = {}
    for index, item in enumerate(instance):
        seen = first.setdefault(canonical(item), index)
        if seen != index:
            yield _violation(
                f"items [{seen}] and [{index}] are equal, and the array's items must be unique"
            )
            return


def _violation(message: str) -> ValidationError:
    """A violation as jsonschema reports it (imported by now: a validator is running)."""
    from jsonschema import ValidationError  # noqa: PLC0415 - loaded with the first schema

    return ValidationError(message)


def canonical(value: object) -> object:
    """A hashable form of a JSON value, equal exactly when JSON Schema calls two values equal.

    Numbers compare by value (``1`` equals ``1.0``) but not with booleans; objects
    ignore key order.

    >>> canonical(1) == canonical(1.0), canonical(1) == canonical(True)
    (True, False)
    >>> canonical({"a": [1, 2]}) == canonical({"a": [1.0, 2]})
    True
    """
    if isinstance(value, bool):
        return ("b", value)
    if isinstance(value, int):
        return ("n", value)
    if isinstance(value, float):
        return ("n", int(value) if value.is_integer() else value)
    if isinstance(value, str):
        return ("s", value)
    if value is None:
        return ("z",)
    if isinstance(value, Mapping):
        return ("o", frozenset((key, canonical(item)) for key, item in value.items()))
    if isinstance(value, list | tuple):
        return ("a", tuple(canonical(item) for item in value))
    return ("?", repr(value))


def quote(value: str, limit: int = 60) -> str:
    """``repr`` of a string cut to ``limit`` characters, so messages stay short."""
    if len(value) <= limit:
        return repr(value)
    return repr(value[:limit]) + f"... ({len(value)} chars)"
