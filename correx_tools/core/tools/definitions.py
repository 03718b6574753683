"""Tool definitions in any form, read into `ToolSpec` values.

A document of tools may be one definition, a list, a ``tools`` list or an MCP
``tools/list`` response; each definition may be MCP's (``inputSchema``),
Anthropic's (``input_schema``), OpenAI's (``{"type": "function", ...}``) or
this library's own (``parameters`` with ``tier`` and ``capabilities``).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from returns.result import Failure, Result, Success

from .capability import ToolCapability
from .formats._reader import FormatError, Reader, tool_list, under
from .formats.mcp import McpPolicy, read_mcp
from .formats.plain import read_own, read_plain
from .spec import ToolSpec
from .tier import Tier


def tool_from_mcp(
    definition: object,
    *,
    tier: Tier | None = None,
    capabilities: Iterable[ToolCapability] | None = None,
    policy: McpPolicy | None = None,
) -> Result[ToolSpec, FormatError]:
    """A `ToolSpec` from an MCP tool definition (see `ToolSpec.from_mcp`)."""
    return ToolSpec.from_mcp(definition, tier=tier, capabilities=capabilities, policy=policy)


def tool_from_definition(
    definition: object,
    *,
    tier: Tier = Tier.AUTO,
    capabilities: Iterable[ToolCapability] = (),
) -> Result[ToolSpec, FormatError]:
    """A `ToolSpec` from a definition in any supported form, recognised by its keys.

    ``tier`` and ``capabilities`` apply where the definition does not carry its own.

    >>> tool_from_definition({"name": "ls", "input_schema": {"type": "object"}}).unwrap().name
    'ls'
    """
    if not isinstance(definition, Mapping):
        return Reader("definition", definition).fail("$", "a tool definition must be an object")
    if "inputSchema" in definition:
        fields = read_mcp(definition, tier=tier, capabilities=capabilities)
    elif definition.get("type") == "function":
        inner = definition.get("function", definition)
        path = "$.function" if "function" in definition else "$"
        fields = read_plain(
            "openai", inner, "parameters", tier=tier, capabilities=capabilities, path=path
        )
    elif "input_schema" in definition:
        fields = read_plain(
            "anthropic", definition, "input_schema", tier=tier, capabilities=capabilities, path="$"
        )
    else:
        fields = read_own(definition, tier, capabilities)
    return fields.map(ToolSpec.of)


def tools_from_mcp_list(
    response: object,
    *,
    tier: Tier | None = None,
    capabilities: Iterable[ToolCapability] | None = None,
    policy: McpPolicy | None = None,
) -> Result[tuple[ToolSpec, ...], FormatError]:
    """The tools of an MCP ``tools/list`` response (the JSON-RPC message or its ``result``)."""
    tools, path = tool_list(response)
    if isinstance(tools, FormatError):
        return Failure(tools)
    specs = []
    for index, item in enumerate(tools):
        spec = tool_from_mcp(item, tier=tier, capabilities=capabilities, policy=policy)
        if isinstance(spec, Failure):
            return Failure(under(spec.failure(), f"{path}[{index}]"))
        specs.append(spec.unwrap())
    return Success(tuple(specs))


def tool_definitions(
    document: object, *, tier: Tier = Tier.AUTO, capabilities: Iterable[ToolCapability] = ()
) -> Result[tuple[ToolSpec, ...], FormatError]:
    """Every tool of a JSON document: one definition, a list of them, or a ``tools`` list.

    Each item may be in any form `tool_from_definition` reads.
    """
    if isinstance(document, Mapping) and "name" in document:
        return tool_from_definition(document, tier=tier, capabilities=capabilities).map(
            lambda spec: (spec,)
        )
    items, path = tool_list(document)
    if isinstance(items, FormatError):
        return Failure(items)
    specs = []
    for index, item in enumerate(items):
        spec = tool_from_definition(item, tier=tier, capabilities=capabilities)
        if isinstance(spec, Failure):
            return Failure(under(spec.failure(), f"{path}[{index}]"))
        specs.append(spec.unwrap())
    return Success(tuple(specs))
