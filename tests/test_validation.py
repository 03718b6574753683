"""Schemas are compiled safely once; requests are validated with JSON paths."""

from __future__ import annotations

from collections.abc import Callable
from typing import ClassVar

import pytest

from correx_tools import (
    InMemoryToolRegistry,
    Invalid,
    RegistryErrorKind,
    Tier,
    ToolCapability,
    ToolRequest,
    ToolSpec,
    Valid,
    ValidationLimits,
    compile_schema,
    validate_request,
)

from . import schemas
from .growth import grows_linearly

WRITE_FILE = ToolSpec(
    name="write_file",
    description="Write a file in the workspace",
    parameters=schemas.WRITE_FILE,
    tier=Tier.CONFIRM,
    capabilities=frozenset({ToolCapability.FILE_WRITE}),
)


def request(**arguments: object) -> ToolRequest:
    return ToolRequest(tool_name="write_file", arguments=arguments)


def test_a_valid_request_is_valid() -> None:
    assert validate_request(WRITE_FILE, request(path="a.txt", content="x", lines=[1, 2])) == Valid()


def test_violations_name_their_json_path() -> None:
    result = validate_request(
        WRITE_FILE, request(path="/etc/passwd", content=3, lines=[1, 0], extra=True)
    )
    assert isinstance(result, Invalid)
    paths = sorted(v.path for v in result.violations)
    assert paths == ["$", "$.content", "$.lines[1]", "$.path"]
    assert "4 violations" in result.reason


def test_a_request_for_another_tool_is_invalid() -> None:
    result = validate_request(WRITE_FILE, ToolRequest(tool_name="read_file", arguments={}))
    assert isinstance(result, Invalid)
    assert "read_file" in result.reason


def test_the_validator_is_built_once_per_spec() -> None:
    assert WRITE_FILE.compiled_schema() is WRITE_FILE.compiled_schema()


@pytest.mark.parametrize(
    ("schema", "path", "words"),
    [
        ({"$ref": "http://127.0.0.1:9/evil.json"}, "$.$ref", "non-local"),
        ({"properties": {"a": {"$ref": "file:///etc/passwd"}}}, "$.properties.a.$ref", "non-local"),
        ({"$ref": "#/$defs/missing"}, "$.$ref", "points at nothing"),
        ({"$defs": {"x": {"$id": "https://e.com/x"}}}, "$.$defs.x.$id", "embedded $id"),
        ({"type": "string", "pattern": "(?=lookahead)"}, "$.pattern", "linear-time"),
        ({"patternProperties": {"(?<=x)": {}}}, "$.patternProperties", "linear-time"),
        ({"type": "no-such-type"}, "$.type", "not valid"),
        ({"$schema": "https://example.com/my-dialect"}, "$.$schema", "unknown dialect"),
        ([1, 2], "$", "must be an object"),
    ],
)
def test_unsafe_or_invalid_schemas_are_refused_with_a_path(
    schema: object, path: str, words: str
) -> None:
    error = compile_schema(schema).failure()
    assert error.path == path
    assert words in error.message


def test_local_refs_and_anchors_work() -> None:
    schema = {
        "$defs": {"pos": {"$anchor": "positive", "type": "integer", "minimum": 1}},
        "properties": {"a": {"$ref": "#/$defs/pos"}, "b": {"$ref": "#positive"}},
    }
    compiled = compile_schema(schema).unwrap()
    assert [e.json_path for e in compiled.iter_errors({"a": 0, "b": 0})] == ["$.a", "$.b"]


def test_older_dialects_are_honoured() -> None:
    compiled = compile_schema(
        {"$schema": "http://json-schema.org/draft-07/schema#", "items": [{"type": "string"}]}
    ).unwrap()
    assert "draft-07" in compiled.dialect
    assert [e.json_path for e in compiled.iter_errors([1])] == ["$[0]"]


def test_a_catastrophic_pattern_runs_in_linear_time() -> None:
    spec = ToolSpec(
        name="p",
        description="",
        parameters=schemas.CATASTROPHIC_PATTERN,
    )

    def validated(size: int) -> Callable[[], object]:
        request = ToolRequest(tool_name="p", arguments={"s": "a" * size + "!"})
        return lambda: validate_request(spec, request)

    # Backtracking on this pattern doubles its work with each character.
    grows_linearly(validated, 10_000, 80_000)
    hostile = "a" * 10_000 + "!"
    result = validate_request(spec, ToolRequest(tool_name="p", arguments={"s": hostile}))
    assert isinstance(result, Invalid)
    assert len(result.reason) < 1024


def test_pattern_properties_and_additional_properties_use_the_safe_engine() -> None:
    compiled = compile_schema(schemas.PATTERN_PROPERTIES).unwrap()
    errors = list(compiled.iter_errors({"x-aaa": "no", "other": 1}))
    assert sorted(e.json_path for e in errors) == ["$", "$['x-aaa']"]


@pytest.mark.parametrize("depth", [65, 100, 248, 1_000, 100_000])
def test_deep_arguments_are_invalid_naming_the_limit(depth: int) -> None:
    nested: object = "leaf"
    for _ in range(depth):
        nested = [nested]
    spec = ToolSpec(name="deep", description="", parameters=schemas.ANY_OBJECT)
    result = validate_request(spec, ToolRequest(tool_name="deep", arguments={"content": nested}))
    assert isinstance(result, Invalid)
    assert "nesting deeper than the limit of 64" in result.reason


def test_size_limits_keep_messages_short() -> None:
    spec = ToolSpec(
        name="big",
        description="",
        parameters=schemas.INTEGER_S,
    )
    result = validate_request(spec, ToolRequest(tool_name="big", arguments={"s": "x" * 5_000_000}))
    assert isinstance(result, Invalid)
    assert "over the limit" in result.reason
    assert len(result.reason) < 1024


def test_non_json_values_are_invalid() -> None:
    spec = ToolSpec(name="n", description="", parameters={})
    assert (
        "not a JSON number"
        in validate_request(spec, ToolRequest(tool_name="n", arguments={"x": float("nan")})).reason
    )  # type: ignore[union-attr]
    assert (
        "not a JSON value"
        in validate_request(spec, ToolRequest(tool_name="n", arguments={"x": b"raw"})).reason
    )  # type: ignore[union-attr]


def test_limits_are_configurable() -> None:
    spec = ToolSpec(name="n", description="", parameters={})
    tight = ValidationLimits(max_string_length=3)
    assert isinstance(
        validate_request(spec, ToolRequest(tool_name="n", arguments={"x": "abcd"}), limits=tight),
        Invalid,
    )
    assert (
        validate_request(spec, ToolRequest(tool_name="n", arguments={"x": "abc"}), limits=tight)
        == Valid()
    )


class PlainTool:
    """A Tool that is not a ToolSpec, to check the protocol path."""

    name = "plain"
    description = "plain"
    parameters: ClassVar[dict[str, object]] = schemas.REQUIRED_X
    tier = Tier.AUTO
    capabilities: frozenset[ToolCapability] = frozenset()


def test_any_tool_implementation_can_be_validated_and_registered() -> None:
    assert isinstance(
        validate_request(PlainTool(), ToolRequest(tool_name="plain", arguments={})), Invalid
    )
    registry = InMemoryToolRegistry.of(PlainTool(), WRITE_FILE).unwrap()
    assert [tool.name for tool in registry.all()] == ["plain", "write_file"]
    assert registry.validate(ToolRequest(tool_name="plain", arguments={"x": 1})) == Valid()


def test_registry_refuses_bad_names_duplicates_and_bad_schemas() -> None:
    bad_name = ToolSpec(name="has space", description="", parameters={})
    bad_schema = ToolSpec(name="ok", description="", parameters={"$ref": "https://e.com/x"})
    assert InMemoryToolRegistry.of(bad_name).failure().kind is RegistryErrorKind.INVALID_NAME
    assert (
        InMemoryToolRegistry.of(WRITE_FILE, WRITE_FILE).failure().kind
        is RegistryErrorKind.DUPLICATE_NAME
    )
    error = InMemoryToolRegistry.of(bad_schema).failure()
    assert error.kind is RegistryErrorKind.INVALID_SCHEMA
    assert error.tool_name == "ok"
    assert "non-local" in error.message
    too_long = ToolSpec(name="x" * 65, description="", parameters={})
    assert InMemoryToolRegistry.of(too_long).failure().kind is RegistryErrorKind.INVALID_NAME


def test_register_returns_a_new_registry() -> None:
    empty = InMemoryToolRegistry.of().unwrap()
    one = empty.register(WRITE_FILE).unwrap()
    assert len(empty) == 0
    assert len(one) == 1
    assert one.resolve("write_file").unwrap() is WRITE_FILE
    assert isinstance(one.validate(ToolRequest(tool_name="nope")), Invalid)
