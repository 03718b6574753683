"""Schemas and arguments from strangers: no fetch, no stall, no crash, short messages."""

from __future__ import annotations

import http.server
import threading
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from correx_tools import (
    InMemoryToolRegistry,
    Invalid,
    RegistryErrorKind,
    ToolRequest,
    ToolSpec,
    Valid,
    ValidationLimits,
    validate_request,
)
from correx_tools.shell.stores.codec.strict_json import EnvelopeError, loads_strict

from . import schemas
from .growth import grows_linearly


class CountingServer(http.server.ThreadingHTTPServer):
    """A loopback HTTP server that serves a valid schema and counts every request."""

    requests = 0


class _Handler(http.server.BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        self.server.requests += 1  # type: ignore[attr-defined]
        body = b'{"type": "string"}'
        self.send_response(200)
        self.send_header("Content-Type", "application/schema+json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, format: str, *args: object) -> None:
        pass


@pytest.fixture
def counting_server() -> Iterator[CountingServer]:
    server = CountingServer(("127.0.0.1", 0), _Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def spec_with(parameters: dict[str, object]) -> ToolSpec:
    return ToolSpec(name="stranger", description="", parameters=parameters)


def test_remote_and_file_refs_are_refused_and_never_fetched(
    counting_server: CountingServer, tmp_path: Path
) -> None:
    port = counting_server.server_address[1]
    served = f"http://127.0.0.1:{port}/schema.json"
    local_file = tmp_path / "schema.json"
    local_file.write_text('{"type": "string"}')
    # The server really answers: a request here would be counted.
    import urllib.request  # noqa: PLC0415 - only to prove the server works

    with urllib.request.urlopen(served) as response:
        assert response.status == 200
    assert counting_server.requests == 1
    schemas = [
        {"$ref": served},
        {"properties": {"a": {"$ref": served + "#/x"}}},
        {"$ref": local_file.as_uri()},
        {"$dynamicRef": served},
        {"items": {"$ref": "file:///etc/passwd"}},
    ]
    for schema in schemas:
        spec = spec_with(schema)
        error = InMemoryToolRegistry.of(spec).failure()
        assert error.kind is RegistryErrorKind.INVALID_SCHEMA, schema
        assert "non-local" in error.message or "$dynamicRef" in error.message, error.message
        result = validate_request(spec, ToolRequest(tool_name="stranger", arguments={"a": 1}))
        assert isinstance(result, Invalid)
    assert counting_server.requests == 1


@pytest.mark.parametrize(
    ("depth", "limit"), [(10, 8), (100, 64), (248, 64), (1_000, 64), (100_000, 64)]
)
def test_deep_nesting_is_invalid_naming_the_depth_limit(depth: int, limit: int) -> None:
    nested: object = "leaf"
    for _ in range(depth):
        nested = {"a": [nested]} if depth < 1_000 else [nested]
    spec = spec_with(schemas.ANY_OBJECT)
    limits = ValidationLimits(max_depth=limit)
    result = validate_request(
        spec, ToolRequest(tool_name="stranger", arguments={"x": nested}), limits=limits
    )
    assert isinstance(result, Invalid)
    assert f"nesting deeper than the limit of {limit}" in result.reason
    assert len(result.reason) < 1024


def test_nesting_within_the_limit_is_valid() -> None:
    nested: object = "leaf"
    for _ in range(10):
        nested = [nested]
    spec = spec_with(schemas.ANY_OBJECT)
    assert validate_request(spec, ToolRequest(tool_name="stranger", arguments={"x": nested})) == (
        Valid()
    )


def test_nan_infinity_and_endless_integers_in_arguments_are_invalid() -> None:
    spec = spec_with({})
    for value, words in [
        (float("nan"), "not a JSON number"),
        (float("inf"), "not a JSON number"),
        (-float("inf"), "not a JSON number"),
        (10**5000, "more than the limit of 4300 digits"),
    ]:
        result = validate_request(spec, ToolRequest(tool_name="stranger", arguments={"x": value}))
        assert isinstance(result, Invalid)
        assert words in result.reason
        assert result.violations[0].path == "$.x"
        assert len(result.reason) < 1024
    near = 10**4299  # 4,300 digits: the longest integer Python writes and reads back
    assert validate_request(spec, ToolRequest(tool_name="stranger", arguments={"x": near})) == (
        Valid()
    )


@pytest.mark.parametrize(
    ("text", "words"),
    [
        ('{"x": NaN}', "NaN is not valid JSON"),
        ('{"x": Infinity}', "Infinity is not valid JSON"),
        ('{"x": -Infinity}', "-Infinity is not valid JSON"),
        ('{"x": 1, "x": 2}', "duplicate key 'x'"),
        ('{"x": ' + "9" * 5_000 + "}", "an integer longer than 4300 digits"),
    ],
)
def test_json_text_is_read_strictly(text: str, words: str) -> None:
    with pytest.raises(EnvelopeError) as caught:
        loads_strict(text)
    assert words in str(caught.value)
    assert len(str(caught.value)) < 300


def test_an_invalid_5_mb_argument_gets_a_short_message() -> None:
    spec = spec_with(schemas.INTEGER_S)
    for limits in (
        ValidationLimits(),
        ValidationLimits(max_string_length=10 << 20, max_total_size=10 << 20),
    ):
        result = validate_request(
            spec, ToolRequest(tool_name="stranger", arguments={"s": "x" * 5_000_000}), limits=limits
        )
        assert isinstance(result, Invalid)
        assert len(result.reason) < 1024
        assert all(len(str(v)) < 1024 for v in result.violations)


# -- validation that cannot stall or crash (issue 15, items 8 to 11) -------------------


def spec_of(schema: dict[str, object]) -> ToolSpec:
    return ToolSpec(name="t", description="", parameters=schema)


def test_unique_items_over_thousands_of_objects_grow_linearly() -> None:
    spec = spec_of({"properties": {"a": {"type": "array", "uniqueItems": True}}})

    def validated(count: int) -> Callable[[], object]:
        distinct = [{"k": i, "v": str(i)} for i in range(count)]
        request = ToolRequest(tool_name="t", arguments={"a": distinct})
        return lambda: validate_request(spec, request)

    # Quadratic took 18 s at 2,000 and 80 s at 5,000.
    grows_linearly(validated, 1_000, 5_000)


@pytest.mark.parametrize("count", [2_000, 5_000])
def test_unique_items_over_thousands_of_objects_are_checked(count: int) -> None:
    spec = spec_of({"properties": {"a": {"type": "array", "uniqueItems": True}}})
    distinct = [{"k": i, "v": str(i)} for i in range(count)]
    assert validate_request(spec, ToolRequest(tool_name="t", arguments={"a": distinct})) == Valid()
    repeated = [*distinct, {"v": "7", "k": 7.0}]  # key order and 7 == 7.0 do not matter
    result = validate_request(spec, ToolRequest(tool_name="t", arguments={"a": repeated}))
    assert isinstance(result, Invalid)
    assert f"items [7] and [{count}] are equal" in result.reason


@pytest.mark.parametrize(
    ("items", "unique"),
    [
        ([1, True], True),
        ([1, 1.0], False),
        ([0, False, None, "", [], {}], True),
        ([{"a": [1, {"b": 2}]}, {"a": [1, {"b": 2.0}]}], False),
        ([[1, 2], [2, 1]], True),
    ],
)
def test_unique_items_means_json_schema_equality(items: list[object], unique: bool) -> None:
    spec = spec_of({"properties": {"a": {"uniqueItems": True}}})
    result = validate_request(spec, ToolRequest(tool_name="t", arguments={"a": items}))
    assert (result == Valid()) is unique


@pytest.mark.parametrize(
    ("schema", "loop"),
    [
        ({"$ref": "#"}, "$ -> $"),
        (
            {
                "$defs": {"a": {"$ref": "#/$defs/b"}, "b": {"$ref": "#/$defs/a"}},
                "$ref": "#/$defs/a",
            },
            "$.$defs.a -> $.$defs.b -> $.$defs.a",
        ),
        ({"allOf": [{"$ref": "#"}]}, "$ -> $.allOf[0] -> $"),
        ({"not": {"anyOf": [{"$ref": "#"}]}}, "$ -> $.not -> $.not.anyOf[0] -> $"),
    ],
)
def test_a_ref_cycle_that_consumes_no_input_is_refused_at_registration(
    schema: dict[str, object], loop: str
) -> None:
    refused = InMemoryToolRegistry.of(spec_of(schema)).failure()
    assert refused.kind is RegistryErrorKind.INVALID_SCHEMA
    assert loop in refused.message
    # validate_request on the unregistered spec refuses it too, with no RecursionError.
    result = validate_request(spec_of(schema), ToolRequest(tool_name="t", arguments={}))
    assert isinstance(result, Invalid)
    assert "forever" in result.reason


def test_a_ref_cycle_through_a_property_consumes_input_and_is_fine() -> None:
    tree = {"type": "object", "properties": {"child": {"$ref": "#"}}}
    InMemoryToolRegistry.of(spec_of(tree)).unwrap()
    nested: dict[str, object] = {}
    for _ in range(10):
        nested = {"child": nested}
    assert validate_request(spec_of(tree), ToolRequest(tool_name="t", arguments=nested)) == Valid()


@pytest.mark.parametrize(
    "schema",
    [
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "dependencies": {"a": {"properties": {"b": {"pattern": "^x"}}}},
        },
        {
            "$defs": {"d": {"default": {"pattern": "^x"}}},
            "properties": {"b": {"$ref": "#/$defs/d/default"}},
        },
    ],
)
def test_every_pattern_the_validator_can_reach_is_compiled_at_registration(
    schema: dict[str, object],
) -> None:
    InMemoryToolRegistry.of(spec_of(schema)).unwrap()
    result = validate_request(
        spec_of(schema), ToolRequest(tool_name="t", arguments={"a": 1, "b": "y"})
    )
    assert isinstance(result, Invalid)
    assert "does not match" in result.reason
    hostile = {**schema, "$defs": {"d": {"default": {"pattern": "(a)\\1"}}}}
    if "dependencies" in schema:
        hostile = {**schema, "dependencies": {"a": {"properties": {"b": {"pattern": "(a)\\1"}}}}}
    refused = InMemoryToolRegistry.of(spec_of(hostile)).failure()
    assert "linear-time regex engine" in refused.message


@pytest.mark.parametrize("depth", [500, 5_000])
def test_a_schema_nested_hundreds_deep_is_refused_without_recursion(depth: int) -> None:
    schema: dict[str, object] = {}
    for _ in range(depth):
        schema = {"properties": {"a": schema}}
    refused = InMemoryToolRegistry.of(spec_of(schema)).failure()
    assert refused.kind is RegistryErrorKind.INVALID_SCHEMA
    assert "deeper than the limit of 128" in refused.message
    assert len(refused.message) < 400
