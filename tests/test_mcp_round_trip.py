"""MCP definitions survive import and export: safety hints never loosen, nothing is lost.

The fixtures in ``tests/data/mcp/`` are real: the GitHub MCP server's
recorded tool snapshots (provenance and license next to them).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure

from correx_tools import (
    FormatError,
    InMemoryToolRegistry,
    Tier,
    ToolCapability,
    ToolSpec,
    portable_name,
    tool_definitions,
)
from correx_tools.core.tools.formats.mcp import _hint_floor

SNAPSHOTS = Path(__file__).parent / "data" / "mcp"


def real_tools() -> list[dict[str, Any]]:
    return [json.loads(path.read_text()) for path in sorted(SNAPSHOTS.glob("*.snap"))]


def imported(definitions: list[dict[str, Any]]) -> dict[str, ToolSpec]:
    """The tools as a registry reads them, with the least a caller can grant."""
    registry = InMemoryToolRegistry.from_mcp_list(
        {"tools": definitions}, tier=Tier.AUTO, capabilities=()
    ).unwrap()
    return {tool.name: tool for tool in registry.all() if isinstance(tool, ToolSpec)}


def exported(tools: dict[str, ToolSpec]) -> list[dict[str, Any]]:
    return [tool.to_mcp().unwrap() for tool in tools.values()]


def test_real_tools_keep_their_tier_capabilities_and_members_through_a_round_trip() -> None:
    first = imported(real_tools())
    second = imported(exported(first))
    assert {n: (t.tier, t.capabilities) for n, t in first.items()} == {
        n: (t.tier, t.capabilities) for n, t in second.items()
    }
    assert first["delete_file"].tier is Tier.CONFIRM
    assert exported(second) == exported(first), "one round trip reaches a fixed point"
    by_name = {d["name"]: d for d in exported(first)}
    assert by_name["delete_file"]["annotations"]["destructiveHint"] is True
    assert by_name["get_file_contents"]["annotations"]["readOnlyHint"] is True
    branch = by_name["create_branch"]
    original = next(d for d in real_tools() if d["name"] == "create_branch")
    assert branch["icons"] == original["icons"]
    assert branch["annotations"]["idempotentHint"] is False
    assert branch["annotations"]["title"] == "Create branch"
    # The schema's own extension members ride along untouched.
    assert branch["inputSchema"]["properties"]["owner"]["x-mcp-header"] == "owner"


HINTS = ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint")


@st.composite
def mcp_tools(draw: st.DrawFn) -> dict[str, Any]:
    annotations = {
        hint: value
        for hint in HINTS
        if (value := draw(st.sampled_from([True, False, None]))) is not None
    }
    definition: dict[str, Any] = {"name": "tool", "inputSchema": {"type": "object"}}
    if annotations or draw(st.booleans()):
        definition["annotations"] = annotations
    if draw(st.booleans()):
        definition["execution"] = {"taskSupport": draw(st.sampled_from(["optional", "required"]))}
    if draw(st.booleans()):
        definition["_meta"] = {"vendor/x": draw(st.integers())}
    return definition


@given(
    definition=mcp_tools(),
    tier=st.sampled_from(list(Tier)),
    capabilities=st.frozensets(st.sampled_from(list(ToolCapability))),
)
def test_export_never_claims_a_tool_is_safer_than_imported(
    definition: dict[str, Any], tier: Tier, capabilities: frozenset[ToolCapability]
) -> None:
    spec = ToolSpec.from_mcp(definition, tier=tier, capabilities=capabilities).unwrap()
    written = spec.to_mcp().unwrap()
    said_tier, said_capabilities = _hint_floor(definition.get("annotations", {}))
    then_tier, then_capabilities = _hint_floor(written["annotations"])
    # What the server's hints implied, the exported hints imply too ...
    assert then_tier >= said_tier and then_capabilities >= said_capabilities
    # ... and what the tool was imported at, as far as MCP's hints can say it.
    assert then_tier >= min(spec.tier, Tier.CONFIRM)
    again = ToolSpec.from_mcp(written, tier=Tier.AUTO, capabilities=()).unwrap()
    assert again.tier >= min(spec.tier, Tier.CONFIRM)
    # Members MCP defines and this library does not model pass through unchanged.
    for member in ("execution", "_meta"):
        assert written.get(member) == definition.get(member)
    said = definition.get("annotations", {})
    if "idempotentHint" in said:
        assert written["annotations"]["idempotentHint"] == said["idempotentHint"]


def test_a_tool_defined_here_that_needs_confirmation_is_not_exported_as_read_only() -> None:
    spec = ToolSpec(
        name="read_secrets",
        description="",
        parameters={"type": "object"},
        tier=Tier.CONFIRM,
        capabilities=frozenset({ToolCapability.FILE_READ}),
    )
    hints = spec.to_mcp().unwrap()["annotations"]
    assert hints == {"readOnlyHint": False, "destructiveHint": True, "openWorldHint": False}
    again = ToolSpec.from_mcp(spec.to_mcp().unwrap(), tier=Tier.AUTO, capabilities=()).unwrap()
    assert again.tier is Tier.CONFIRM


def test_an_mcp_name_other_formats_cannot_carry_is_renamed_and_kept() -> None:
    listing = {
        "tools": [
            {"name": "github.create_issue", "inputSchema": {"type": "object"}},
            {"name": "echo", "inputSchema": {"type": "object"}},
        ]
    }
    registry = InMemoryToolRegistry.from_mcp_list(listing, tier=Tier.AUTO, capabilities=())
    tool = registry.unwrap().resolve("github_create_issue").unwrap()
    assert isinstance(tool, ToolSpec) and tool.mcp_name == "github.create_issue"
    assert tool.to_mcp().unwrap()["name"] == "github.create_issue"
    assert tool.to_anthropic().unwrap()["name"] == "github_create_issue"
    assert portable_name("fs:read file/now") == "fs_read_file_now"
    refused = InMemoryToolRegistry.from_mcp_list(
        listing, tier=Tier.AUTO, capabilities=(), rename=None
    )
    assert isinstance(refused, Failure)
    assert refused.failure().path == "$.tools[0].name"


def test_two_names_renamed_alike_are_refused_not_merged() -> None:
    listing = {
        "tools": [
            {"name": "a_b", "inputSchema": {"type": "object"}},
            {"name": "a.b", "inputSchema": {"type": "object"}},
        ]
    }
    refused = InMemoryToolRegistry.from_mcp_list(listing, tier=Tier.AUTO, capabilities=())
    assert isinstance(refused, Failure)
    assert refused.failure().path == "$.tools[1].name"
    assert "a_b" in refused.failure().message


def test_provider_defined_tools_are_refused_naming_their_type() -> None:
    for definition in (
        {"type": "bash_20250124", "name": "bash"},
        {"type": "text_editor_20250728", "name": "str_replace_based_edit_tool"},
        {"type": "web_search_20250305", "name": "web_search", "max_uses": 5},
        {"type": "custom", "name": "code_exec", "format": {"type": "text"}},
        {"type": "web_search_preview"},
    ):
        refused = tool_definitions([definition])
        assert isinstance(refused, Failure), definition
        error = refused.failure()
        assert isinstance(error, FormatError)
        assert error.path == "$[0].type"
        assert repr(definition["type"]) in error.message and "provider-defined" in error.message
