"""Arguments generated from each tool schema: valid ones pass, invalid ones name a JSON path.

hypothesis-jsonschema draws objects that satisfy a schema, and objects that
satisfy ``{"type": "object", "not": schema}``, for every schema in
``tests/schemas.py``. The first must be ``Valid``; the second ``Invalid``,
each violation's path pointing at a value that is really in the arguments.
jsonschema's own validator, run on the same object, must agree every time.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from jsonschema import validators

from correx_tools import Invalid, ToolRequest, ToolSpec, Valid, validate_request

from .schemas import ACCEPT_EVERY_OBJECT, SCHEMAS

# Drawing from a negated schema filters; the health checks would flag that, not a bug.
# Half the profile's examples: 21 schema-sides at 100 each keep this file near 20 s in CI.
GENERATED = settings(
    max_examples=max(10, settings.default.max_examples // 2),
    suppress_health_check=[HealthCheck.filter_too_much, HealthCheck.too_slow],
)

_STEP = re.compile(r"\.([A-Za-z][A-Za-z0-9_]*)|\[(\d+)\]|\['((?:\\\\|\\'|[^'\\])*)'\]")


def resolve(arguments: object, path: str) -> object:
    """The value at a ``$.a[0]['b c']`` path; a ``LookupError`` if there is none."""
    assert path.startswith("$"), path
    position, value = 1, arguments
    while position < len(path):
        step = _STEP.match(path, position)
        assert step is not None, f"{path!r} is not a JSON path (at {position})"
        name, index, quoted = step.groups()
        if index is not None:
            assert isinstance(value, list), path
            value = value[int(index)]
        else:
            key = name if name is not None else re.sub(r"\\(.)", r"\1", quoted)
            assert isinstance(value, dict), path
            value = value[key]
        position = step.end()
    return value


def test_resolve_reads_the_paths_jsonschema_writes() -> None:
    arguments = {"a": [{"b c": {"it's\\": 1}}]}
    assert resolve(arguments, "$") == arguments
    assert resolve(arguments, "$.a[0]['b c']['it\\'s\\\\']") == 1
    with pytest.raises(LookupError):
        resolve(arguments, "$.a[1]")


def spec_for(name: str) -> ToolSpec:
    return ToolSpec(name=name, description=f"generated {name}", parameters=SCHEMAS[name])


def objects_of(schema: dict[str, Any], *, negated: bool) -> dict[str, Any]:
    """The objects ``schema`` accepts (or refuses), its ``$defs`` kept at the root for ``$ref``."""
    body = {key: value for key, value in schema.items() if key != "$defs"}
    wrapped: dict[str, Any] = (
        {"type": "object", "not": body} if negated else {"allOf": [body, {"type": "object"}]}
    )
    if negated and "properties" in schema:
        # Random key names almost never hit a declared property, and filtering for one
        # is slow: draw from the declared names and one undeclared name instead.
        wrapped["propertyNames"] = {"enum": [*schema["properties"], "undeclared"]}
    if "$defs" in schema:
        wrapped["$defs"] = schema["$defs"]
    return wrapped


def ecma_line_breaks(value: object) -> bool:
    """Whether ``value`` holds a string with ``\\r``, U+2028 or U+2029.

    A pattern's ``.`` stops at these in ECMA-262, which JSON Schema follows and
    this library translates to; it does not in Python's ``re``, which
    hypothesis-jsonschema draws from and jsonschema matches with. Such draws
    compare two dialects, not two validators.
    """
    if isinstance(value, str):
        return any(breaker in value for breaker in "\r\u2028\u2029")
    if isinstance(value, dict):
        return any(ecma_line_breaks(key) or ecma_line_breaks(v) for key, v in value.items())
    if isinstance(value, list):
        return any(ecma_line_breaks(item) for item in value)
    return False


def reference_verdict(schema: dict[str, Any], arguments: object) -> bool:
    validator = validators.validator_for(schema)(schema)
    return bool(validator.is_valid(arguments))


@pytest.mark.parametrize("name", sorted(SCHEMAS))
def test_generated_valid_arguments_are_valid(name: str) -> None:
    spec = spec_for(name)
    schema = objects_of(SCHEMAS[name], negated=False)

    @GENERATED
    @given(from_schema(schema))
    def check(arguments: dict[str, Any]) -> None:
        assert reference_verdict(SCHEMAS[name], arguments)
        assume(not ecma_line_breaks(arguments))
        assert validate_request(spec, ToolRequest(tool_name=name, arguments=arguments)) == Valid()

    check()


@pytest.mark.parametrize("name", sorted(set(SCHEMAS) - ACCEPT_EVERY_OBJECT))
def test_generated_invalid_arguments_are_invalid_with_a_json_path(name: str) -> None:
    spec = spec_for(name)
    schema = objects_of(SCHEMAS[name], negated=True)

    @GENERATED
    @given(from_schema(schema))
    def check(arguments: dict[str, Any]) -> None:
        assert not reference_verdict(SCHEMAS[name], arguments)
        result = validate_request(spec, ToolRequest(tool_name=name, arguments=arguments))
        assert isinstance(result, Invalid), arguments
        assert result.violations
        for violation in result.violations:
            resolve(arguments, violation.path)
            assert violation.message
        assert len(result.reason) < 1024

    check()


def test_the_schemas_that_accept_every_object_do() -> None:
    @given(st.dictionaries(st.text(max_size=5), st.integers() | st.text(max_size=5)))
    def check(arguments: dict[str, Any]) -> None:
        for name in ACCEPT_EVERY_OBJECT:
            assert (
                validate_request(spec_for(name), ToolRequest(tool_name=name, arguments=arguments))
                == Valid()
            )

    check()
