"""Tool definitions in any form, read into `ToolSpec` values.

A document of tools may be one definition, a list, a ``tools`` list or an MCP
``tools/list`` response; each definition may be MCP's (``inputSchema``),
Anthropic's (``input_schema``), OpenAI's (``{"type": "function", ...}``) or
this library's own (``parameters`` with ``tier`` and ``capabilities``).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import replace

from returns.result import Failure, Result, Success

from .capability import ToolCapability
from .formats._reader import TOOL_NAME, FormatError, Reader, tool_list, under
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
    kind = definition.get("type")
    custom = "inputSchema" in definition or "input_schema" in definition
    if kind not in (None, "function") and not custom:
        return Reader("definition", definition).fail(
            "$.type",
            f"{str(kind)[:80]!r} is a provider-defined tool: the provider runs it and defines "
            "its arguments, so there is no schema here to validate calls against (this "
            "library reads custom tools: MCP's, OpenAI's function tools, Anthropic's "
            "tools with an input_schema)",
        )
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
    rename: Callable[[str], str] | None = None,
) -> Result[tuple[ToolSpec, ...], FormatError]:
    """The tools of an MCP ``tools/list`` response (the JSON-RPC message or its ``result``).

    ``rename`` gives a tool whose MCP name other formats cannot carry (one
    with a ``.``, say) a portable name; the MCP name is kept (`ToolSpec.mcp_name`).
    """
    tools, path = tool_list(response)
    if isinstance(tools, FormatError):
        return Failure(tools)
    specs = []
    for index, item in enumerate(tools):
        spec = tool_from_mcp(item, tier=tier, capabilities=capabilities, policy=policy)
        if isinstance(spec, Failure):
            return Failure(under(spec.failure(), f"{path}[{index}]"))
        specs.append(_renamed(spec.unwrap(), rename))
    return Success(tuple(specs))


def portable_name(name: str) -> str:
    """``name`` as a tool name every format and the registry accept: each character
    outside A-Z a-z 0-9 _ - becomes ``_``, and it is cut to 64 characters.

    >>> portable_name("github.create_issue"), portable_name("fs/read file")
    ('github_create_issue', 'fs_read_file')
    """
    return re.sub(r"[^A-Za-z0-9_-]", "_", name)[:64] or "_"


def _renamed(spec: ToolSpec, rename: Callable[[str], str] | None) -> ToolSpec:
    """``spec`` under the name ``rename`` gives it, if it needs one and there is a rename."""
    if rename is None or TOOL_NAME.fullmatch(spec.name):
        return spec
    members = {**(spec.mcp_members_as_written() or {}), "name": spec.name}
    return replace(spec, name=rename(spec.name), mcp_members=members)


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
