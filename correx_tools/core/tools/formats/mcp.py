"""MCP tool definitions, both ways, with its annotations read as hints that only tighten.

Reading treats the definition as a stranger's: MCP's ``annotations`` are
hints that may only make a tool stricter, never looser. The caller says which
tier and capabilities a tool gets, directly or with a policy function; an
annotation can then raise the tier (a destructive tool needs at least
``CONFIRM``) or add a capability (an open-world tool gets ``NETWORK_ACCESS``),
but a ``readOnlyHint`` can never lower anything. Where MCP leaves a hint out,
its own default applies: destructive, open world.

Writing never claims a tool is safer than what was imported or declared:
the hints follow from the tier and the capabilities together (a tool that
needs confirmation is not read-only, and is destructive), and where the tool
came from MCP, what its server said wins whenever it is stricter. Whatever
else the server wrote (``idempotentHint``, ``execution``, ``_meta``,
``icons``, members MCP adds later) is kept as written and written back. A
name or schema MCP cannot express is a `FormatError` naming the JSON path.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Protocol, runtime_checkable

from returns.result import Failure, Result, Success

from ..capability import ToolCapability
from ..tier import Tier
from ..tool import DescribedTool, Tool
from ._reader import MCP_TOOL_NAME, FormatError, Reader, ToolFields, exported


class McpPolicy(Protocol):
    """Decides the tier and capabilities of an imported MCP tool from its definition.

    The annotations are applied after it, and can only make the tool stricter.
    """

    def __call__(self, definition: Mapping[str, Any], /) -> tuple[Tier, Iterable[ToolCapability]]:
        """``(tier, capabilities)`` for the tool ``definition`` describes."""
        ...


@runtime_checkable
class KeepsMcpMembers(Protocol):
    """A tool that keeps what its MCP definition said beyond the fields it models."""

    def mcp_members_as_written(self) -> dict[str, Any] | None:
        """The MCP members kept as written (``annotations`` included); ``None`` if the
        tool did not come from MCP."""
        ...


MODELLED = frozenset({"name", "title", "description", "inputSchema", "outputSchema"})
"""The MCP members a `ToolFields` models; every other member is kept as written."""

_WRITES = frozenset(
    {ToolCapability.FILE_WRITE, ToolCapability.SHELL_EXEC, ToolCapability.PROCESS_SPAWN}
)
_REACHES_OUT = frozenset(
    {ToolCapability.NETWORK_ACCESS, ToolCapability.SHELL_EXEC, ToolCapability.PROCESS_SPAWN}
)


def read_mcp(
    definition: object,
    *,
    tier: Tier | None = None,
    capabilities: Iterable[ToolCapability] | None = None,
    policy: McpPolicy | None = None,
) -> Result[ToolFields, FormatError]:
    """The fields of an MCP tool definition; the annotations can only tighten them.

    >>> fields = read_mcp({"name": "rm", "inputSchema": {"type": "object"}},
    ...                   tier=Tier.AUTO, capabilities=()).unwrap()
    >>> fields.tier, sorted(c.value for c in fields.capabilities)  # MCP's defaults: worst case
    (<Tier.CONFIRM: 'confirm'>, ['network_access'])
    """
    reader = Reader("mcp", definition)
    if not isinstance(definition, Mapping):
        return reader.fail("$", "an MCP tool definition must be a JSON object")
    name = reader.name("name", MCP_TOOL_NAME, "MCP tool names are 1 to 128 of A-Z a-z 0-9 _ - .")
    description = reader.text("description")
    title = reader.text("title")
    schema = reader.schema("inputSchema", required=True)
    output_schema = reader.schema("outputSchema", required=False)
    annotations = reader.annotations()
    if reader.error is not None:
        return Failure(reader.error)
    granted = _grant(definition, tier, capabilities, policy)
    if isinstance(granted, str):
        return reader.fail("$", granted)
    floor_tier, floor_capabilities = _hint_floor(annotations)
    return Success(
        ToolFields(
            name=name,
            description=description or "",
            title=title or (annotations.get("title") if annotations else None),
            parameters=schema or {},
            output_schema=output_schema,
            tier=max(granted[0], floor_tier),
            capabilities=granted[1] | floor_capabilities,
            mcp_members={k: v for k, v in definition.items() if k not in MODELLED},
        )
    )


def tool_to_mcp(tool: Tool) -> Result[dict[str, Any], FormatError]:
    """The MCP definition of ``tool``; its hints follow from its tier and capabilities
    and, for a tool read from MCP, from what its server said (the stricter wins).

    >>> from correx_tools.core.tools.spec import ToolSpec
    >>> spec = ToolSpec(name="read_file", description="Read a file",
    ...                 parameters={"type": "object"}, capabilities={ToolCapability.FILE_READ})
    >>> tool_to_mcp(spec).unwrap()["annotations"]
    {'readOnlyHint': True, 'destructiveHint': False, 'openWorldHint': False}
    """
    written = exported("mcp", tool, MCP_TOOL_NAME, "1 to 128 of A-Z a-z 0-9 _ - .", "inputSchema")
    if isinstance(written, FormatError):
        return Failure(written)
    name, schema = written
    members = tool.mcp_members_as_written() if isinstance(tool, KeepsMcpMembers) else None
    original = (members or {}).get("name")
    if isinstance(original, str) and MCP_TOOL_NAME.fullmatch(original):
        name = original  # renamed on import: the server knows it by this name
    definition: dict[str, Any] = {"name": name}
    described = tool if isinstance(tool, DescribedTool) else None
    if described is not None and described.title:
        definition["title"] = described.title
    if tool.description:
        definition["description"] = tool.description
    definition["inputSchema"] = schema
    output_schema = None if described is None else described.output_schema_as_written()
    if output_schema is not None:
        definition["outputSchema"] = output_schema
    said = None if members is None else members.get("annotations", {})
    if members is not None and not isinstance(said, Mapping):
        said = {}
    definition["annotations"] = exported_hints(tool.tier, tool.capabilities, said)
    for member, value in (members or {}).items():
        if member not in MODELLED and member != "annotations":
            definition[member] = value
    return Success(definition)


def exported_hints(
    tier: Tier, capabilities: frozenset[ToolCapability], said: Mapping[str, Any] | None
) -> dict[str, Any]:
    """MCP's hints for a tool of ``tier`` and ``capabilities``, never safer than ``said``.

    ``said`` is what the tool's MCP server wrote (``None`` for a tool defined
    here): a hint it left out means MCP's default (not read-only, destructive,
    open world), and its other annotations are kept as they were.

    >>> exported_hints(Tier.CONFIRM, frozenset({ToolCapability.FILE_READ}), None)
    {'readOnlyHint': False, 'destructiveHint': True, 'openWorldHint': False}
    >>> said = {"destructiveHint": False, "idempotentHint": True}  # open world by default
    >>> exported_hints(Tier.AUTO, frozenset(), said)
    {'destructiveHint': False, 'idempotentHint': True, 'readOnlyHint': False, 'openWorldHint': True}
    """
    writes = bool(capabilities & _WRITES)
    open_world = bool(capabilities & _REACHES_OUT)
    if said is None:
        read_only = capabilities <= {ToolCapability.FILE_READ} and tier is Tier.AUTO
        return {
            "readOnlyHint": read_only,
            "destructiveHint": writes or tier is not Tier.AUTO,
            "openWorldHint": open_world,
        }
    # A server's read-only tool may reach out (MCP's open-world default gives it
    # NETWORK_ACCESS): it stays read-only unless its tier or capabilities say more.
    read_only = said.get("readOnlyHint") is True and tier is Tier.AUTO and not writes
    hints = dict(said)
    hints["readOnlyHint"] = read_only
    # MCP reads destructiveHint only when a tool is not read-only; its default is true.
    hints["destructiveHint"] = (
        writes
        or tier is not Tier.AUTO
        or (not read_only and said.get("destructiveHint", True) is not False)
    )
    hints["openWorldHint"] = open_world or said.get("openWorldHint", True) is not False
    return hints


def _grant(
    definition: Mapping[str, Any],
    tier: Tier | None,
    capabilities: Iterable[ToolCapability] | None,
    policy: McpPolicy | None,
) -> tuple[Tier, frozenset[ToolCapability]] | str:
    """The tier and capabilities the caller gives the tool, or why they are missing."""
    if policy is not None:
        if tier is not None or capabilities is not None:
            return "give a policy or a tier and capabilities, not both"
        tier, capabilities = policy(definition)
    if tier is None or capabilities is None:
        return "importing an MCP tool needs a tier and capabilities (or a policy)"
    if not isinstance(tier, Tier):
        raise TypeError(f"tier must be a Tier, not {type(tier).__name__}")
    return tier, frozenset(capabilities)


def _hint_floor(annotations: Mapping[str, Any]) -> tuple[Tier, frozenset[ToolCapability]]:
    """The least tier and the capabilities MCP's hints imply, defaults included."""
    read_only = annotations.get("readOnlyHint", False) is True
    destructive = annotations.get("destructiveHint", True) is True
    open_world = annotations.get("openWorldHint", True) is True
    tier = Tier.CONFIRM if destructive and not read_only else Tier.AUTO
    return tier, frozenset({ToolCapability.NETWORK_ACCESS} if open_world else ())
