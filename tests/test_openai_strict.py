"""``to_openai(strict=True)``: a schema rewritten into OpenAI's strict subset, or why not."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis_jsonschema import from_schema
from returns.result import Failure

from correx_tools import FormatError, Tier, ToolSpec, without_strict_nulls
from correx_tools.core.tools.formats.openai_strict import fits_strict, strict_schema
from correx_tools.core.tools.schema.compiled import compile_schema

SNAPSHOTS = Path(__file__).parent / "data" / "mcp"


def spec(parameters: dict[str, Any]) -> ToolSpec:
    return ToolSpec(name="t", description="", parameters=parameters)


def refusal(parameters: dict[str, Any], *, strict: bool | None) -> FormatError:
    result = spec(parameters).to_openai(strict=strict)
    assert isinstance(result, Failure), result
    error = result.failure()
    assert isinstance(error, FormatError)
    return error


def test_optional_properties_become_required_and_nullable_at_every_level() -> None:
    written = (
        spec(
            {
                "type": "object",
                "properties": {
                    "path": {"type": "string"},
                    "mode": {"type": "string", "enum": ["a", "b"], "default": "a"},
                    "options": {"type": "object", "properties": {"depth": {"type": "integer"}}},
                    "tags": {"type": "array", "items": {"$ref": "#/$defs/tag"}},
                },
                "required": ["path"],
                "$defs": {"tag": {"type": "object", "properties": {"name": {"type": "string"}}}},
            }
        )
        .to_openai(strict=True)
        .unwrap()["function"]
    )
    assert written["strict"] is True
    schema = written["parameters"]
    assert schema["required"] == ["path", "mode", "options", "tags"]
    assert schema["additionalProperties"] is False
    # "default" only annotates: strict mode refuses it, so it is left out.
    assert schema["properties"]["mode"] == {"type": ["string", "null"], "enum": ["a", "b", None]}
    options = schema["properties"]["options"]
    assert options["type"] == ["object", "null"] and options["required"] == ["depth"]
    assert options["properties"]["depth"] == {"type": ["integer", "null"]}
    assert schema["properties"]["tags"]["type"] == ["array", "null"]
    assert schema["$defs"]["tag"]["additionalProperties"] is False
    assert fits_strict(schema)


def test_a_schema_that_already_fits_is_written_unchanged() -> None:
    parameters = {
        "type": "object",
        "properties": {"text": {"type": "string"}},
        "required": ["text"],
        "additionalProperties": False,
    }
    for strict in (None, True):
        function = spec(parameters).to_openai(strict=strict).unwrap()["function"]
        assert function["parameters"] == parameters and function["strict"] is True
    assert spec(parameters).to_openai(strict=False).unwrap()["function"]["strict"] is False


def test_what_strict_mode_cannot_express_is_refused_naming_it_and_where() -> None:
    error = refusal(
        {"type": "object", "properties": {"name": {"type": "string", "minLength": 1}}},
        strict=True,
    )
    assert error.path == "$.parameters.properties.name.minLength"
    assert "minLength" in error.message
    error = refusal({"type": "object", "additionalProperties": {"type": "string"}}, strict=True)
    assert error.path == "$.parameters.additionalProperties"
    # Without strict=True the schema is passed through as written, not strict.
    loose = spec({"type": "object", "additionalProperties": True}).to_openai().unwrap()
    assert loose["function"]["strict"] is False


def test_a_root_openai_refuses_is_an_error_in_every_mode() -> None:
    for strict in (None, True, False):
        nullable = refusal({"type": ["object", "null"]}, strict=strict)
        assert nullable.path == "$.parameters.type"
        union = refusal(
            {"type": "object", "anyOf": [{"required": ["a"]}, {"required": ["b"]}]},
            strict=strict,
        )
        assert union.path == "$.parameters.anyOf"


def test_a_real_github_tool_is_rewritten() -> None:
    definition = json.loads((SNAPSHOTS / "get_file_contents.snap").read_text())
    tool = ToolSpec.from_mcp(definition, tier=Tier.AUTO, capabilities=()).unwrap()
    assert tool.to_openai().unwrap()["function"]["strict"] is False
    schema = tool.to_openai(strict=True).unwrap()["function"]["parameters"]
    assert set(schema["required"]) == {"owner", "path", "ref", "repo", "sha"}
    assert schema["properties"]["path"] == {
        "type": ["string", "null"],
        "description": "Path to file/directory",
    }


SCALARS = st.sampled_from(
    [{"type": "string"}, {"type": "integer", "minimum": 0}, {"type": "boolean"}]
)
OBJECTS = st.recursive(
    SCALARS,
    lambda inner: st.builds(
        lambda properties, required: {
            "type": "object",
            "properties": properties,
            "required": [name for name in properties if name in required],
        },
        st.dictionaries(st.sampled_from("abcd"), inner, max_size=3),
        st.sets(st.sampled_from("abcd")),
    ),
    max_leaves=6,
).filter(lambda schema: schema.get("type") == "object")


def values(schema: dict[str, Any]) -> st.SearchStrategy[Any]:
    """Values ``schema`` accepts, optional properties sometimes left out."""
    match schema.get("type"):
        case "string":
            return st.text(max_size=3)
        case "integer":
            return st.integers(min_value=0)
        case "boolean":
            return st.booleans()
    properties = schema["properties"]
    return st.fixed_dictionaries(
        {name: values(sub) for name, sub in properties.items() if name in schema["required"]},
        optional={
            name: values(sub) for name, sub in properties.items() if name not in schema["required"]
        },
    )


def with_nulls(value: Any, schema: dict[str, Any]) -> Any:
    """``value`` as a strict-mode model would write it: omitted properties as ``null``."""
    if schema.get("type") != "object" or not isinstance(value, dict):
        return value
    return {
        name: with_nulls(value[name], sub) if name in value else None
        for name, sub in schema["properties"].items()
    }


@given(st.data(), OBJECTS)
def test_the_rewrite_fits_and_accepts_what_the_original_did_with_nulls_for_omissions(
    data: st.DataObject, schema: dict[str, Any]
) -> None:
    strict = strict_schema(schema)
    assert fits_strict(strict) and strict_schema(strict) == strict
    value = data.draw(values(schema))
    jsonschema.Draft202012Validator(schema).validate(value)
    jsonschema.Draft202012Validator(strict).validate(with_nulls(value, schema))


# Tool schemas with optional properties at several depths, in arrays, behind $refs and in
# an anyOf branch, and one whose optional property the tool itself allows to be null.
OPTIONAL_SHAPES: list[dict[str, Any]] = [
    {
        "type": "object",
        "properties": {
            "path": {"type": "string"},
            "limit": {"type": "integer", "minimum": 1},
            "mode": {"enum": ["overwrite", "append"]},
        },
        "required": ["path"],
    },
    {
        "type": "object",
        "properties": {
            "edits": {"type": "array", "items": {"$ref": "#/$defs/edit"}, "maxItems": 3},
            "note": {"type": ["string", "null"]},
        },
        "required": ["edits"],
        "$defs": {
            "edit": {
                "type": "object",
                "properties": {"old": {"type": "string"}, "new": {"type": "string"},
                               "all": {"type": "boolean"}},
                "required": ["old", "new"],
            }
        },
    },
    {
        "type": "object",
        "properties": {
            "target": {
                "anyOf": [
                    {"type": "object", "properties": {"url": {"type": "string"},
                                                      "timeout": {"type": "number"}},
                     "required": ["url"]},
                    {"type": "string"},
                ]
            }
        },
        "required": ["target"],
    },
]  # fmt: skip


@pytest.mark.parametrize("schema", OPTIONAL_SHAPES)
@settings(max_examples=60)
@given(data=st.data())
def test_a_strict_models_arguments_fit_the_tools_schema_once_its_nulls_are_dropped(
    schema: dict[str, Any], data: st.DataObject
) -> None:
    strict = strict_schema(schema)
    arguments = data.draw(from_schema(strict))
    cleaned = without_strict_nulls(schema, arguments)
    errors = list(compile_schema(schema).unwrap().iter_errors(cleaned))
    assert errors == [], (arguments, cleaned)


def test_a_null_the_tool_allows_or_requires_is_kept() -> None:
    schema = OPTIONAL_SHAPES[1]
    arguments = {"edits": [{"old": "a", "new": "b", "all": None}], "note": None}
    assert without_strict_nulls(schema, arguments) == {
        "edits": [{"old": "a", "new": "b"}],
        "note": None,
    }
    required = {"type": "object", "properties": {"p": {"type": "string"}}, "required": ["p"]}
    assert without_strict_nulls(required, {"p": None}) == {"p": None}
