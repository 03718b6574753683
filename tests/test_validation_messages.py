"""Violations go back to a model: JSON in the messages, one per mistake, a hint when close.

And the local references the official JSON Schema Test Suite requires resolve
(percent-encoded pointers, plain-name fragments, the document's own ``$id``).
"""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from correx_tools import Invalid, ToolRequest, ToolSpec, validate_request
from correx_tools.core.tools.schema.compiled import compile_schema

WRITE = ToolSpec(
    name="write_file",
    description="",
    parameters={
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "content": {"type": "string", "minLength": 1},
            "mode": {"type": "string", "enum": ["overwrite", "append"]},
            "retries": {"type": "integer", "minimum": 0},
        },
        "required": ["path", "content"],
        "additionalProperties": False,
    },
)


def violations(arguments: dict[str, Any]) -> list[str]:
    result = validate_request(WRITE, ToolRequest(tool_name="write_file", arguments=arguments))
    assert isinstance(result, Invalid)
    return [str(violation) for violation in result.violations]


def test_messages_quote_values_as_json_not_python() -> None:
    found = violations({"path": True, "content": "x", "retries": "10"})
    assert found == [
        '$.path: true is not of type "string"',
        '$.retries: "10" is not of type "integer"',
    ]


def test_a_value_of_the_wrong_type_gets_one_message_not_one_per_keyword() -> None:
    # 5 fails "type" and "enum" alike: one mistake, one message.
    assert violations({"path": "a", "content": "x", "mode": 5}) == [
        '$.mode: 5 is not of type "string"'
    ]
    assert violations({"path": "a", "content": "x", "mode": "replace"}) == [
        '$.mode: "replace" is not one of ["overwrite","append"]'
    ]


def test_a_missing_property_beside_an_unexpected_look_alike_asks_did_you_mean() -> None:
    found = violations({"paht": "a.txt", "content": "x"})
    assert found == [
        '$: "path" is a required property (did you mean "path" instead of "paht"?)',
        '$: unexpected property "paht"',
    ]
    # Nothing alike: no guess.
    assert violations({"content": "x", "verbose": True}) == [
        '$: "path" is a required property',
        '$: unexpected property "verbose"',
    ]


def test_each_missing_property_is_named_once() -> None:
    assert violations({}) == [
        '$: "path" is a required property',
        '$: "content" is a required property',
    ]


def test_bounds_are_said_in_words() -> None:
    assert violations({"path": "a", "content": "", "retries": -1}) == [
        '$.content: "" has 0 characters; at least 1 allowed',
        "$.retries: -1 is less than the minimum of 0",
    ]


@given(
    st.dictionaries(
        st.sampled_from(["path", "content", "mode", "retries", "other"]),
        st.one_of(st.none(), st.booleans(), st.integers(), st.text(alphabet="abc", max_size=5)),
    )
)
def test_no_message_shows_a_python_literal(arguments: dict[str, Any]) -> None:
    result = validate_request(WRITE, ToolRequest(tool_name="write_file", arguments=arguments))
    for violation in getattr(result, "violations", ()):
        message = violation.message
        assert "True" not in message and "False" not in message and "None" not in message
        assert "'" not in message, message


@pytest.mark.parametrize(
    "schema",
    [
        # RFC 6901 pointers inside an RFC 3986 fragment: percent-decoded first.
        {
            "$defs": {"percent%field": {"type": "integer"}},
            "properties": {"a": {"$ref": "#/$defs/percent%25field"}},
        },
        {
            "$defs": {'foo"bar': {"type": "integer"}},
            "properties": {"a": {"$ref": "#/$defs/foo%22bar"}},
        },
        # A draft-7 plain-name fragment, and 2020-12's $anchor.
        {
            "$schema": "http://json-schema.org/draft-07/schema#",
            "definitions": {"A": {"$id": "#foo", "type": "integer"}},
            "properties": {"a": {"$ref": "#foo"}},
        },
        {
            "$defs": {"A": {"$anchor": "foo", "type": "integer"}},
            "properties": {"a": {"$ref": "#foo"}},
        },
        # The document's own $id, as a URN and as a URL: still this document.
        {
            "$id": "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed",
            "$defs": {"n": {"type": "integer"}},
            "properties": {"a": {"$ref": "urn:uuid:deadbeef-1234-ffff-ffff-4321feebdaed#/$defs/n"}},
        },
        {
            "$id": "https://example.com/root.json",
            "$defs": {"n": {"type": "integer"}},
            "properties": {"a": {"$ref": "https://example.com/root.json#/$defs/n"}},
        },
    ],
    ids=["percent-25", "percent-22", "draft7-plain-name", "anchor", "urn-id", "url-id"],
)
def test_local_references_resolve(schema: dict[str, Any]) -> None:
    compiled = compile_schema(schema).unwrap()
    assert [error.validator for error in compiled.iter_errors({"a": "x"})] == ["type"]
    assert list(compiled.iter_errors({"a": 1})) == []


def test_a_reference_that_leaves_the_document_is_still_refused() -> None:
    refused = compile_schema(
        {"$id": "https://example.com/root.json", "properties": {"a": {"$ref": "other.json"}}}
    )
    assert "non-local $ref" in str(refused.failure())


def test_messages_read_only_as_many_errors_as_the_limit_needs() -> None:
    schema = compile_schema({"type": "array", "items": {"type": "string"}}).unwrap()
    consumed = 0

    def counted() -> Any:
        nonlocal consumed
        for error in schema.iter_errors(list(range(10_000))):
            consumed += 1
            yield error

    from correx_tools.core.tools.schema.messages import described  # noqa: PLC0415

    assert len(list(described(counted(), 20))) == 20
    assert consumed <= 20 * 4
