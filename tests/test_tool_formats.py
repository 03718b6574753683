"""Tool definitions to and from MCP, OpenAI and Anthropic, and outcomes back to the model."""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from correx_tools import (
    FormatError,
    InMemoryToolRegistry,
    Invalid,
    InvocationId,
    Tier,
    ToolCapability,
    ToolFailure,
    ToolRequest,
    ToolSpec,
    ToolSuccess,
    Valid,
    outcome_text,
    thaw_json,
    to_anthropic_result,
    to_mcp_result,
    to_openai_result,
    tool_definitions,
    validate_request,
)
from correx_tools.core.tools.formats.openai import fits_openai_strict

from . import schemas

DATA = Path(__file__).parent / "data"
C = ToolCapability
MCP_LIST = json.loads((DATA / "mcp_tools_list.json").read_text())


def mcp(name: str = "tool", **fields: Any) -> dict[str, Any]:
    return {"name": name, "inputSchema": {"type": "object"}, **fields}


# -- importing MCP ---------------------------------------------------------------------


def test_an_mcp_definition_keeps_its_name_title_description_and_schemas() -> None:
    listing = MCP_LIST["result"]["tools"]
    spec = ToolSpec.from_mcp(listing[2], tier=Tier.AUTO, capabilities={C.FILE_READ}).unwrap()
    assert spec.name == "list_directory"
    assert spec.title is None
    assert spec.description == "List the entries of a directory."
    assert thaw_json(spec.parameters)["required"] == ["path"]
    assert spec.output_schema is not None
    assert spec.to_mcp().unwrap()["outputSchema"] == listing[2]["outputSchema"]
    titled = ToolSpec.from_mcp(listing[0], tier=Tier.AUTO, capabilities=()).unwrap()
    assert titled.title == "Read text file"


def test_the_caller_decides_the_tier_and_capabilities() -> None:
    read_only = mcp(annotations={"readOnlyHint": True, "openWorldHint": False})
    spec = ToolSpec.from_mcp(read_only, tier=Tier.CONFIRM, capabilities={C.FILE_READ}).unwrap()
    assert spec.tier is Tier.CONFIRM
    assert spec.capabilities == {C.FILE_READ}


def test_a_policy_decides_from_the_definition() -> None:
    def by_name(definition: Mapping[str, Any]) -> tuple[Tier, set[ToolCapability]]:
        if definition["name"].startswith(("read", "list")):
            return Tier.AUTO, {C.FILE_READ}
        return Tier.ELEVATED, {C.SHELL_EXEC}

    registry = InMemoryToolRegistry.from_mcp_list(MCP_LIST, policy=by_name).unwrap()
    tools = {tool.name: tool for tool in registry.all()}
    assert tools["read_text_file"].tier is Tier.AUTO
    assert tools["read_text_file"].capabilities == {C.FILE_READ}
    assert tools["run_command"].tier is Tier.ELEVATED
    # MCP's defaults (no annotations): open world, so network access is added.
    assert tools["run_command"].capabilities == {C.SHELL_EXEC, C.NETWORK_ACCESS}


def test_missing_hints_take_mcps_worst_case_defaults() -> None:
    spec = ToolSpec.from_mcp(mcp(), tier=Tier.AUTO, capabilities=()).unwrap()
    assert spec.tier is Tier.CONFIRM
    assert spec.capabilities == {C.NETWORK_ACCESS}


HINTS = st.fixed_dictionaries(
    {},
    optional={
        "readOnlyHint": st.booleans(),
        "destructiveHint": st.booleans(),
        "idempotentHint": st.booleans(),
        "openWorldHint": st.booleans(),
    },
)


@given(
    hints=HINTS,
    tier=st.sampled_from(list(Tier)),
    capabilities=st.frozensets(st.sampled_from(list(ToolCapability))),
)
def test_hints_never_lower_the_tier_or_drop_a_capability(
    hints: dict[str, bool], tier: Tier, capabilities: frozenset[ToolCapability]
) -> None:
    spec = ToolSpec.from_mcp(mcp(annotations=hints), tier=tier, capabilities=capabilities).unwrap()
    assert spec.tier >= tier
    assert spec.capabilities >= capabilities
    destructive = hints.get("destructiveHint", True) and not hints.get("readOnlyHint", False)
    assert (spec.tier > tier) == (destructive and tier < Tier.CONFIRM)
    assert (C.NETWORK_ACCESS in spec.capabilities) == (
        C.NETWORK_ACCESS in capabilities or hints.get("openWorldHint", True)
    )


@pytest.mark.parametrize(
    ("definition", "path", "words"),
    [
        ([1], "$", "JSON object"),
        ({"inputSchema": {"type": "object"}}, "$.name", "string name"),
        (mcp("has space"), "$.name", "not a valid name"),
        (mcp("x" * 129), "$.name", "not a valid name"),
        ({"name": "t"}, "$", "no inputSchema"),
        (mcp(inputSchema=[]), "$.inputSchema", "JSON object"),
        (mcp(inputSchema={"type": "string"}), "$.inputSchema.type", "JSON object"),
        (
            mcp(inputSchema={"properties": {"a": {"$ref": "http://127.0.0.1:9/x"}}}),
            "$.inputSchema.properties.a.$ref",
            "non-local",
        ),
        (mcp(inputSchema={"type": "nope"}), "$.inputSchema.type", "not valid"),
        (mcp(outputSchema={"$ref": "file:///etc/passwd"}), "$.outputSchema.$ref", "non-local"),
        (mcp(annotations={"readOnlyHint": "yes"}), "$.annotations.readOnlyHint", "true or false"),
        (mcp(annotations=[]), "$.annotations", "object"),
        (mcp(description=3), "$.description", "string"),
    ],
)
def test_bad_mcp_definitions_are_errors_naming_the_path(
    definition: object, path: str, words: str
) -> None:
    error = ToolSpec.from_mcp(definition, tier=Tier.AUTO, capabilities=()).failure()
    assert isinstance(error, FormatError)
    assert error.path == path
    assert words in error.message
    assert path in str(error)


def test_the_tier_must_come_from_somewhere() -> None:
    assert "needs a tier" in ToolSpec.from_mcp(mcp()).failure().message
    both = ToolSpec.from_mcp(
        mcp(), tier=Tier.AUTO, capabilities=(), policy=lambda _: (Tier.AUTO, ())
    )
    assert "not both" in both.failure().message


def test_a_tools_list_error_or_a_bad_tool_is_named_by_its_place() -> None:
    error = InMemoryToolRegistry.from_mcp_list(
        {"jsonrpc": "2.0", "id": 1, "error": {"code": -32601, "message": "Method not found"}},
        tier=Tier.AUTO,
        capabilities=(),
    ).failure()
    assert error.path == "$.error"
    assert "Method not found" in error.message
    listing = {"tools": [mcp("a"), mcp("b", inputSchema={"type": 3})]}
    error = InMemoryToolRegistry.from_mcp_list(listing, tier=Tier.AUTO, capabilities=()).failure()
    assert error.path == "$.tools[1].inputSchema.type"
    assert error.tool_name == "b"
    twice = {"result": {"tools": [mcp("a"), mcp("a")]}}
    error = InMemoryToolRegistry.from_mcp_list(twice, tier=Tier.AUTO, capabilities=()).failure()
    assert error.path == "$.result.tools[1].name"
    assert "twice" in error.message
    dotted = {"tools": [mcp("files.read")]}  # legal in MCP, not in a registry: renamed ...
    renamed = InMemoryToolRegistry.from_mcp_list(dotted, tier=Tier.AUTO, capabilities=())
    assert [tool.name for tool in renamed.unwrap().all()] == ["files_read"]
    error = InMemoryToolRegistry.from_mcp_list(  # ... or, when asked, refused
        dotted, tier=Tier.AUTO, capabilities=(), rename=None
    ).failure()
    assert error.path == "$.tools[0].name"


# -- exporting -------------------------------------------------------------------------

SPEC = ToolSpec(
    name="write_file",
    title="Write file",
    description="Write a file in the workspace",
    parameters=schemas.WRITE_FILE,
    tier=Tier.CONFIRM,
    capabilities=frozenset({C.FILE_WRITE}),
)


@pytest.mark.parametrize(
    ("capabilities", "read_only", "destructive", "open_world"),
    [
        (set(), True, False, False),
        ({C.FILE_READ}, True, False, False),
        ({C.FILE_WRITE}, False, True, False),
        ({C.NETWORK_ACCESS}, False, False, True),
        ({C.SHELL_EXEC}, False, True, True),
        ({C.PROCESS_SPAWN, C.FILE_READ}, False, True, True),
    ],
)
def test_mcp_hints_follow_from_the_capabilities(
    capabilities: set[ToolCapability], read_only: bool, destructive: bool, open_world: bool
) -> None:
    spec = ToolSpec(name="t", description="", capabilities=frozenset(capabilities))
    assert spec.to_mcp().unwrap()["annotations"] == {
        "readOnlyHint": read_only,
        "destructiveHint": destructive,
        "openWorldHint": open_world,
    }


def test_mcp_export_carries_every_field() -> None:
    assert SPEC.to_mcp().unwrap() == {
        "name": "write_file",
        "title": "Write file",
        "description": "Write a file in the workspace",
        "inputSchema": schemas.WRITE_FILE,
        "annotations": {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": False},
    }


@given(
    tier=st.sampled_from(list(Tier)),
    capabilities=st.frozensets(st.sampled_from(list(ToolCapability))),
    name=st.sampled_from(sorted(schemas.SCHEMAS)),
)
def test_mcp_round_trip_keeps_the_tool_and_can_only_tighten_it(
    tier: Tier, capabilities: frozenset[ToolCapability], name: str
) -> None:
    spec = ToolSpec(
        name=name,
        description=f"the {name} tool",
        parameters=schemas.SCHEMAS[name],
        tier=tier,
        capabilities=capabilities,
    )
    back = ToolSpec.from_mcp(spec.to_mcp().unwrap(), tier=tier, capabilities=capabilities)
    again = back.unwrap()
    assert (again.name, again.description) == (spec.name, spec.description)
    expected_schema = dict(schemas.SCHEMAS[name])
    expected_schema.setdefault("type", "object")
    assert validate_request(again, ToolRequest(tool_name=name, arguments={})) == validate_request(
        spec, ToolRequest(tool_name=name, arguments={})
    )
    assert again.to_mcp().unwrap()["inputSchema"] == expected_schema
    assert again.tier >= tier
    assert again.capabilities >= capabilities
    if tier >= Tier.CONFIRM or not capabilities & {C.FILE_WRITE, C.SHELL_EXEC, C.PROCESS_SPAWN}:
        assert again.tier is tier


def test_openai_chat_and_responses_shapes() -> None:
    chat = SPEC.to_openai().unwrap()
    assert chat == {
        "type": "function",
        "function": {
            "name": "write_file",
            "description": "Write a file in the workspace",
            "parameters": schemas.WRITE_FILE,
            # "lines" is optional: strict mode would demand it, so strict is off.
            "strict": False,
        },
    }
    flat = SPEC.to_openai(api="responses").unwrap()
    assert flat == {"type": "function", **chat["function"]}


@pytest.mark.parametrize(
    ("schema", "strict"),
    [
        (
            {
                "type": "object",
                "properties": {"a": {"type": "string"}},
                "required": ["a"],
                "additionalProperties": False,
            },
            True,
        ),
        ({"type": "object", "properties": {}, "additionalProperties": False}, True),
        ({"type": "object", "properties": {"a": {"type": "string"}}, "required": ["a"]}, False),
        (
            {
                "type": "object",
                "properties": {"a": {"type": "object", "properties": {"b": {}}}},
                "required": ["a"],
                "additionalProperties": False,
            },
            False,
        ),
        (
            {
                "type": "object",
                "properties": {"a": {"oneOf": [{"type": "string"}]}},
                "required": ["a"],
                "additionalProperties": False,
            },
            False,
        ),
        (schemas.PATTERN_PROPERTIES, False),
        (schemas.RUN_SHELL, False),
    ],
)
def test_openai_strict_only_where_the_schema_already_fits(
    schema: dict[str, Any], strict: bool
) -> None:
    assert fits_openai_strict(schema) is strict
    spec = ToolSpec(name="t", description="", parameters=schema)
    assert spec.to_openai().unwrap()["function"]["strict"] is strict


def test_anthropic_shape() -> None:
    assert SPEC.to_anthropic().unwrap() == {
        "name": "write_file",
        "description": "Write a file in the workspace",
        "input_schema": schemas.WRITE_FILE,
    }


@pytest.mark.parametrize("exporter", ["to_openai", "to_anthropic", "to_mcp"])
def test_what_a_format_cannot_express_is_an_error_not_a_change(exporter: str) -> None:
    bad_name = ToolSpec(name="files read", description="", parameters={})
    error = getattr(bad_name, exporter)().failure()
    assert error.path == "$.name"
    string_args = ToolSpec(name="t", description="", parameters={"type": "string"})
    error = getattr(string_args, exporter)().failure()
    assert error.path.endswith(".type")
    assert "JSON object" in error.message


def test_dotted_names_are_mcp_only() -> None:
    dotted = ToolSpec(name="files.read", description="", parameters={})
    assert dotted.to_mcp().unwrap()["name"] == "files.read"
    assert "64" in dotted.to_openai().failure().message
    assert dotted.to_anthropic().failure().path == "$.name"


def test_a_schema_without_type_gets_type_object_and_nothing_else() -> None:
    spec = ToolSpec(name="t", description="", parameters=schemas.PATTERN_PROPERTIES)
    assert spec.to_anthropic().unwrap()["input_schema"] == {
        "type": "object",
        **schemas.PATTERN_PROPERTIES,
    }


# -- reading any form ------------------------------------------------------------------


def test_every_form_reads_back_to_the_same_tool() -> None:
    own = {
        "name": "write_file",
        "description": "Write a file in the workspace",
        "parameters": schemas.WRITE_FILE,
        "tier": "confirm",
        "capabilities": ["file_write"],
    }
    forms = [
        own,
        SPEC.to_anthropic().unwrap(),
        SPEC.to_openai().unwrap(),
        SPEC.to_openai(api="responses").unwrap(),
    ]
    for form in forms:
        (spec,) = tool_definitions(
            [form], tier=Tier.CONFIRM, capabilities=frozenset({C.FILE_WRITE})
        ).unwrap()
        assert spec == ToolSpec(
            name="write_file",
            description="Write a file in the workspace",
            parameters=schemas.WRITE_FILE,
            tier=Tier.CONFIRM,
            capabilities=frozenset({C.FILE_WRITE}),
        ), form
    (from_mcp,) = tool_definitions([SPEC.to_mcp().unwrap()], tier=Tier.CONFIRM).unwrap()
    assert from_mcp.title == "Write file"
    assert from_mcp.capabilities == frozenset()  # hints add no write capability


@pytest.mark.parametrize(
    ("document", "path", "words"),
    [
        ({"tools": 3}, "$.tools", "list"),
        ([{"name": "a", "parameters": {}, "tier": "root"}], "$[0].tier", "not a tier"),
        ([{"name": "a", "capabilities": ["fly"]}], "$[0].capabilities[0]", "not a capability"),
        (
            [{"type": "function", "function": {"name": "a", "parameters": {"type": 1}}}],
            "$[0].function.parameters.type",
            "",
        ),
        ({"name": "a", "input_schema": {"$ref": "#/nowhere"}}, "$.input_schema.$ref", "nothing"),
    ],
)
def test_definition_errors_name_their_json_path(document: object, path: str, words: str) -> None:
    error = tool_definitions(document).failure()
    assert error.path == path
    assert words in error.message


# -- outcomes back to the model --------------------------------------------------------

CALL = InvocationId("call-7")
INVALID = validate_request(SPEC, ToolRequest(tool_name="write_file", arguments={"path": "/x"}))


def test_an_invalid_request_reads_as_a_correctable_error_in_every_format() -> None:
    assert isinstance(INVALID, Invalid)
    text = outcome_text(INVALID)
    assert "$.path" in text
    assert '$: "content" is a required property' in text
    assert text.startswith("Error:")
    assert to_mcp_result(INVALID) == {
        "content": [{"type": "text", "text": text}],
        "isError": True,
    }
    assert to_anthropic_result(INVALID, tool_use_id="toolu_1") == {
        "type": "tool_result",
        "tool_use_id": "toolu_1",
        "content": text,
        "is_error": True,
    }
    assert to_openai_result(INVALID, tool_call_id="call_1") == {
        "role": "tool",
        "tool_call_id": "call_1",
        "content": text,
    }
    assert to_openai_result(INVALID, tool_call_id="c", api="responses") == {
        "type": "function_call_output",
        "call_id": "c",
        "output": text,
    }
    with pytest.raises(ValueError, match="tool_use_id"):
        to_anthropic_result(INVALID)


def test_failures_say_whether_a_retry_may_help() -> None:
    again = ToolFailure(invocation_id=CALL, reason="timed out", recoverable=True)
    never = ToolFailure(invocation_id=CALL, reason="no such file", recoverable=False)
    assert "may succeed if called again" in outcome_text(again)
    assert "will fail the same way" in outcome_text(never)
    assert to_anthropic_result(never)["tool_use_id"] == "call-7"
    assert to_anthropic_result(never)["is_error"] is True
    assert to_mcp_result(again)["isError"] is True


def test_successes_carry_their_output() -> None:
    structured = ToolSuccess(invocation_id=CALL, output={"entries": ["a", "b"]})
    result = to_mcp_result(structured)
    assert result == {
        "content": [{"type": "text", "text": '{"entries":["a","b"]}'}],
        "isError": False,
        "structuredContent": {"entries": ["a", "b"]},
    }
    text = ToolSuccess(invocation_id=CALL, output="done", exit_code=2)
    assert outcome_text(text) == "exit code 2\ndone"
    assert "is_error" not in to_anthropic_result(text)
    assert to_openai_result(text)["content"] == "exit code 2\ndone"


def test_a_valid_request_has_no_error_message() -> None:
    request = ToolRequest(tool_name="write_file", arguments={"path": "a", "content": ""})
    assert validate_request(SPEC, request) == Valid()


def test_exports_keep_the_schema_as_its_author_wrote_it() -> None:
    written = {
        "type": "object",
        "properties": {"zeta": {"type": "string"}, "alpha": {"type": "integer"}},
        "required": ["zeta"],
        "additionalProperties": False,
    }
    spec = ToolSpec(name="t", description="", parameters=written, output_schema=written)
    for exported in (
        spec.to_anthropic().unwrap()["input_schema"],
        spec.to_openai().unwrap()["function"]["parameters"],
        spec.to_mcp().unwrap()["outputSchema"],
    ):
        assert json.dumps(exported) == json.dumps(written)
    # A copy each time: changing what was handed out changes nothing in the spec.
    spec.schema_as_written()["properties"].clear()
    assert spec.schema_as_written() == written
