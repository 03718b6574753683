"""Resolving tools by name."""

from __future__ import annotations

import enum
from collections.abc import Callable, Iterable
from typing import Protocol, final

from pyrsistent import PMap, pmap
from returns.maybe import Maybe, Nothing, Some
from returns.result import Failure, Result, Success

from .capability import ToolCapability
from .definitions import portable_name, tools_from_mcp_list
from .errors import CorrexError, error_value
from .formats._reader import TOOL_NAME, FormatError, tool_list
from .formats.mcp import McpPolicy
from .json_values import thaw_json
from .request import ToolRequest
from .schema.compiled import CompiledSchema, compile_schema
from .spec import ToolSpec
from .tier import Tier
from .tool import Tool
from .validation import (
    DEFAULT_LIMITS,
    Invalid,
    ValidationLimits,
    ValidationResult,
    Violation,
    validate_arguments,
)


class ToolRegistry(Protocol):
    """Finds tools by name and lists them."""

    def resolve(self, name: str) -> Maybe[Tool]:
        """The tool called ``name``, or ``Nothing``."""
        ...

    def all(self) -> tuple[Tool, ...]:
        """Every tool, ordered by name."""
        ...


@final
class RegistryErrorKind(enum.Enum):
    """Why a tool was refused."""

    DUPLICATE_NAME = "duplicate name"
    INVALID_NAME = "invalid name"
    INVALID_SCHEMA = "invalid schema"


@final
@error_value
class RegistryError(CorrexError):
    """A tool the registry refused: which one, and why."""

    kind: RegistryErrorKind
    tool_name: str
    message: str


@final
class InMemoryToolRegistry:
    """An immutable registry; `register` returns a new one.

    Each tool's schema is compiled once, when it is registered.

    >>> echo = ToolSpec(name="echo", description="Echo", parameters={"type": "object"})
    >>> registry = InMemoryToolRegistry.of(echo).unwrap()
    >>> registry.resolve("echo").map(lambda tool: tool.name)
    <Some: echo>
    >>> print(InMemoryToolRegistry.of(echo, echo).failure())
    tool 'echo' is registered twice
    """

    __slots__ = ("_formats", "_tools")

    def __init__(
        self,
        tools: PMap[str, tuple[Tool, CompiledSchema]] | None = None,
        *,
        formats: bool = False,
    ) -> None:
        self._tools: PMap[str, tuple[Tool, CompiledSchema]] = pmap() if tools is None else tools
        self._formats = formats

    @staticmethod
    def of(*tools: Tool, formats: bool = False) -> Result[InMemoryToolRegistry, RegistryError]:
        """A registry of ``tools``, or the first reason one of them is refused.

        ``formats=True`` makes ``format`` an assertion in every tool's schema
        (see `compile_schema`); by default it only annotates.
        """
        return InMemoryToolRegistry(formats=formats).register_all(tools)

    @staticmethod
    def from_mcp_list(
        response: object,
        *,
        tier: Tier | None = None,
        capabilities: Iterable[ToolCapability] | None = None,
        policy: McpPolicy | None = None,
        rename: Callable[[str], str] | None = portable_name,
    ) -> Result[InMemoryToolRegistry, FormatError]:
        """A registry of the tools in an MCP ``tools/list`` response.

        ``response`` is the parsed JSON-RPC message or its ``result``. Each tool
        is read by `ToolSpec.from_mcp` with the same ``tier`` and
        ``capabilities`` (or ``policy``). MCP allows tool names the registry
        and the other formats do not (``github.create_issue``): ``rename``
        gives such a tool a name they accept (by default `portable_name`), and
        the spec keeps the server's name as `ToolSpec.mcp_name` (and writes it
        back in `ToolSpec.to_mcp`); ``rename=None`` refuses such a name
        instead. A tool the registry refuses is an error naming its place in
        the response.

        >>> response = {"jsonrpc": "2.0", "id": 1, "result": {"tools": [
        ...     {"name": "echo", "inputSchema": {"type": "object"}}]}}
        >>> InMemoryToolRegistry.from_mcp_list(response, tier=Tier.AUTO, capabilities=())
        <Success: InMemoryToolRegistry(['echo'])>
        """
        specs = tools_from_mcp_list(
            response, tier=tier, capabilities=capabilities, policy=policy, rename=rename
        )
        if isinstance(specs, Failure):
            return Failure(specs.failure())
        registry = InMemoryToolRegistry()
        for index, spec in enumerate(specs.unwrap()):
            registered = registry.register(spec)
            if isinstance(registered, Failure):
                refused = registered.failure()
                invalid_schema = refused.kind is RegistryErrorKind.INVALID_SCHEMA
                field = "inputSchema" if invalid_schema else "name"
                _, where = tool_list(response)
                return Failure(
                    FormatError(
                        format="mcp",
                        tool_name=spec.name,
                        path=f"{where}[{index}].{field}",
                        message=refused.message,
                    )
                )
            registry = registered.unwrap()
        return Success(registry)

    def register(self, tool: Tool) -> Result[InMemoryToolRegistry, RegistryError]:
        """A new registry that also holds ``tool``."""
        name = tool.name
        if not isinstance(name, str) or TOOL_NAME.fullmatch(name) is None:
            return Failure(
                RegistryError(
                    kind=RegistryErrorKind.INVALID_NAME,
                    tool_name=str(name),
                    message=f"tool name {str(name)[:80]!r} must match ^[A-Za-z0-9_-]{{1,64}}$",
                )
            )
        if name in self._tools:
            return Failure(
                RegistryError(
                    kind=RegistryErrorKind.DUPLICATE_NAME,
                    tool_name=name,
                    message=f"tool {name!r} is registered twice",
                )
            )
        if isinstance(tool, ToolSpec) and not self._formats:
            compiled = tool.compiled_schema()  # built once per spec, shared
        elif isinstance(tool, ToolSpec):
            compiled = compile_schema(tool.schema_as_written(), formats=True)
        else:
            compiled = compile_schema(thaw_json(tool.parameters), formats=self._formats)
        schema = compiled.value_or(None)
        if schema is None:
            return Failure(
                RegistryError(
                    kind=RegistryErrorKind.INVALID_SCHEMA,
                    tool_name=name,
                    message=f"tool {name!r} has an invalid parameter schema: {compiled.failure()}",
                )
            )
        tools = self._tools.set(name, (tool, schema))
        return Success(InMemoryToolRegistry(tools, formats=self._formats))

    def register_all(self, tools: Iterable[Tool]) -> Result[InMemoryToolRegistry, RegistryError]:
        """Register each of ``tools`` in turn, stopping at the first refusal."""
        registry = self
        for tool in tools:
            result = registry.register(tool)
            if not isinstance(result, Success):
                return result
            registry = result.unwrap()
        return Success(registry)

    def resolve(self, name: str) -> Maybe[Tool]:
        """The tool called ``name``, or ``Nothing``."""
        entry = self._tools.get(name)
        return Nothing if entry is None else Some(entry[0])

    def all(self) -> tuple[Tool, ...]:
        """Every tool, ordered by name."""
        return tuple(self._tools[name][0] for name in sorted(self._tools))

    def __len__(self) -> int:
        return len(self._tools)

    def validate(
        self, request: ToolRequest, *, limits: ValidationLimits = DEFAULT_LIMITS
    ) -> ValidationResult:
        """Validate ``request`` against the registered tool it names."""
        entry = self._tools.get(request.tool_name)
        if entry is None:
            return Invalid(
                reason=f"no tool named {request.tool_name[:80]!r} is registered",
                violations=(Violation(path="$.tool_name", message="unknown tool"),),
            )
        return validate_arguments(entry[1], request.arguments, limits=limits)

    def __repr__(self) -> str:
        return f"InMemoryToolRegistry({sorted(self._tools)!r})"
