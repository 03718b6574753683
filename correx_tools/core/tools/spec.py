"""Tools defined as data: `ToolSpec`, and its conversions to and from outside formats."""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any, final

from returns.result import Result

from .capability import ToolCapability
from .formats._reader import FormatError, ToolFields
from .formats.anthropic import tool_to_anthropic
from .formats.mcp import McpPolicy, read_mcp, tool_to_mcp
from .formats.openai import OpenAiApi, tool_to_openai
from .json_values import freeze_json, thaw_json
from .schema.compiled import CompiledSchema, SchemaError, compile_schema
from .tier import Tier


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSpec:
    """A `Tool` defined as data.

    The schema is stored frozen and compiled once, on first use, then kept
    with the spec. ``title`` (a display name) and ``output_schema`` (the JSON
    Schema of a structured output) are optional; MCP carries both. Convert
    from and to the MCP, OpenAI and Anthropic forms with `from_mcp`,
    `to_mcp`, `to_openai` and `to_anthropic`.

    >>> spec = ToolSpec(name="read_file", description="Read a file",
    ...                 parameters={"type": "object"}, capabilities={ToolCapability.FILE_READ})
    >>> spec.tier, sorted(c.name for c in spec.capabilities)
    (<Tier.AUTO: 'auto'>, ['FILE_READ'])
    """

    name: str
    description: str
    parameters: Mapping[str, Any] = field(default_factory=dict)
    tier: Tier = Tier.AUTO
    capabilities: frozenset[ToolCapability] = frozenset()
    title: str | None = None
    output_schema: Mapping[str, Any] | None = None
    mcp_members: Mapping[str, Any] | None = None
    _compiled: Result[CompiledSchema, SchemaError] | None = field(
        default=None, init=False, repr=False, compare=False, hash=False
    )
    # The schemas as JSON text in the order they were written: frozen maps forget
    # key order, and an exported schema should read as its author wrote it.
    _written: tuple[str | None, str | None, str | None] = field(
        default=(None, None, None), init=False, repr=False, compare=False, hash=False
    )

    def __post_init__(self) -> None:
        if not isinstance(self.name, str):
            raise TypeError(f"tool name must be a str, not {type(self.name).__name__}")
        if not isinstance(self.tier, Tier):
            raise TypeError(f"tier must be a Tier, not {type(self.tier).__name__}")
        written = (self.parameters, self.output_schema, self.mcp_members)
        object.__setattr__(self, "_written", tuple(_as_written(value) for value in written))
        object.__setattr__(self, "parameters", freeze_json(self.parameters))
        if self.output_schema is not None:
            object.__setattr__(self, "output_schema", freeze_json(self.output_schema))
        if self.mcp_members is not None:
            object.__setattr__(self, "mcp_members", freeze_json(self.mcp_members))
        capabilities = frozenset(self.capabilities)
        for capability in capabilities:
            if not isinstance(capability, ToolCapability):
                raise TypeError(f"capabilities must be ToolCapability values, got {capability!r}")
        object.__setattr__(self, "capabilities", capabilities)

    def compiled_schema(self) -> Result[CompiledSchema, SchemaError]:
        """The parameter schema checked and compiled (built once, then reused)."""
        compiled = self._compiled
        if compiled is None:
            # As written: the keywords run, and their violations come, in the author's order.
            compiled = compile_schema(self.schema_as_written())
            object.__setattr__(self, "_compiled", compiled)
        return compiled

    def schema_as_written(self) -> dict[str, Any]:
        """The parameter schema as a new plain ``dict``, keys in the order they were given.

        >>> ToolSpec(name="t", description="", parameters={"type": "object", "required": []}
        ...          ).schema_as_written()
        {'type': 'object', 'required': []}
        """
        written = self._written[0]
        thawed: dict[str, Any] = (
            json.loads(written) if written is not None else thaw_json(self.parameters)
        )
        return thawed

    def output_schema_as_written(self) -> dict[str, Any] | None:
        """The output schema as a new plain ``dict`` (``None`` if there is none)."""
        return _thawed(self.output_schema, self._written[1])

    def mcp_members_as_written(self) -> dict[str, Any] | None:
        """What the tool's MCP definition said beyond the fields above, as written:
        ``annotations``, ``execution``, ``_meta``, ``icons``, any member MCP adds
        later, and ``name`` when the tool was renamed on import (``None`` for a
        tool that did not come from MCP)."""
        return _thawed(self.mcp_members, self._written[2])

    @property
    def mcp_name(self) -> str:
        """The name the tool's MCP server knows it by: ``name`` unless renamed on import.

        >>> spec = ToolSpec(name="github_create_issue", description="",
        ...                 mcp_members={"name": "github.create_issue"})
        >>> spec.mcp_name
        'github.create_issue'
        """
        original = (self.mcp_members or {}).get("name")
        return original if isinstance(original, str) else self.name

    @staticmethod
    def of(fields: ToolFields) -> ToolSpec:
        """The spec a format read: its fields as they are."""
        return ToolSpec(**fields._asdict())

    @staticmethod
    def from_mcp(
        definition: object,
        *,
        tier: Tier | None = None,
        capabilities: Iterable[ToolCapability] | None = None,
        policy: McpPolicy | None = None,
    ) -> Result[ToolSpec, FormatError]:
        """A spec from an MCP tool definition; see `read_mcp`.

        >>> spec = ToolSpec.from_mcp(
        ...     {"name": "read_file", "inputSchema": {"type": "object"},
        ...      "annotations": {"readOnlyHint": True, "openWorldHint": False}},
        ...     tier=Tier.AUTO, capabilities={ToolCapability.FILE_READ}).unwrap()
        >>> spec.tier, sorted(c.value for c in spec.capabilities)
        (<Tier.AUTO: 'auto'>, ['file_read'])
        """
        return read_mcp(definition, tier=tier, capabilities=capabilities, policy=policy).map(
            ToolSpec.of
        )

    def to_mcp(self) -> Result[dict[str, Any], FormatError]:
        """This tool as an MCP definition; see `tool_to_mcp`."""
        return tool_to_mcp(self)

    def to_openai(
        self, *, api: OpenAiApi = "chat", strict: bool | None = None
    ) -> Result[dict[str, Any], FormatError]:
        """This tool as an OpenAI function tool; see `tool_to_openai`."""
        return tool_to_openai(self, api=api, strict=strict)

    def to_anthropic(self) -> Result[dict[str, Any], FormatError]:
        """This tool as an Anthropic tool; see `tool_to_anthropic`."""
        return tool_to_anthropic(self)


def _thawed(frozen: Mapping[str, Any] | None, written: str | None) -> dict[str, Any] | None:
    """``frozen`` as a new plain ``dict``, from its written text when there is one."""
    if frozen is None:
        return None
    thawed: dict[str, Any] = json.loads(written) if written is not None else thaw_json(frozen)
    return thawed


def _as_written(value: object) -> str | None:
    """A plain JSON object as text that keeps its key order; ``None`` for anything else."""
    if not isinstance(value, dict):
        return None
    try:
        return json.dumps(value, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError, RecursionError):
        return None
