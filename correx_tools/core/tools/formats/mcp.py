"""Tool definitions in the forms MCP, OpenAI and Anthropic use, both ways.

Reading (:func:`tool_from_mcp`, :func:`tool_from_definition`) treats the
definition as a stranger's: names and schemas are checked, and MCP's
``annotations`` are hints that may only make a tool stricter, never looser.
The caller says which tier and capabilities a tool gets, directly or with a
policy function; an annotation can then raise the tier (a destructive tool
needs at least ``CONFIRM``) or add a capability (an open-world tool gets
``NETWORK_ACCESS``), but a ``readOnlyHint`` can never lower anything. Where
MCP leaves a hint out, its own default applies: destructive, open world.

Writing (:func:`tool_to_mcp`, :func:`tool_to_openai`,
:func:`tool_to_anthropic`) derives MCP's hints from the capabilities, and
marks an OpenAI function ``strict`` only when its schema already fits
OpenAI's strict subset. Nothing is silently changed: a name or schema a
format cannot express is a :class:`FormatError` naming the JSON path. The one
rewrite is adding ``"type": "object"`` to a root schema that has no
``type``, which changes nothing for tool arguments (always objects).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal, Protocol, TypeAlias, final

from returns.result import Failure, Result, Success

from .capability import ToolCapability
from .json_values import thaw_json
from .schema import SchemaError, compile_schema
from .schema_walk import subschemas
from .tier import Tier
from .tool import Tool, ToolSpec

TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""The tool names MCP, OpenAI and Anthropic all accept (and the registry requires)."""

MCP_TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")
"""The tool names MCP accepts (its specification of 2025-11-25)."""


class McpPolicy(Protocol):
    """Decides the tier and capabilities of an imported MCP tool from its definition.

    The annotations are applied after it, and can only make the tool stricter.
    """

    def __call__(self, definition: Mapping[str, Any], /) -> tuple[Tier, Iterable[ToolCapability]]:
        """``(tier, capabilities)`` for the tool ``definition`` describes."""
        ...


OpenAiApi: TypeAlias = Literal["chat", "responses"]
"""OpenAI's Chat Completions (``function`` nested) or Responses (flat) tool shape."""

_WRITES = frozenset(
    {ToolCapability.FILE_WRITE, ToolCapability.SHELL_EXEC, ToolCapability.PROCESS_SPAWN}
)
_REACHES_OUT = frozenset(
    {ToolCapability.NETWORK_ACCESS, ToolCapability.SHELL_EXEC, ToolCapability.PROCESS_SPAWN}
)

# The keywords OpenAI's strict mode (Structured Outputs) accepts in a function's schema.
_OPENAI_STRICT_KEYWORDS = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "enum", "const",
        "anyOf", "$ref", "$defs", "description", "title", "pattern", "format", "minimum",
        "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
    }
)  # fmt: skip


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class FormatError:
    """A tool definition a format cannot read or express: which tool, where, and why.

    ``path`` is the JSON path inside the definition (``$.inputSchema.properties.x``).
    """

    format: str
    tool_name: str
    path: str
    message: str

    def __str__(self) -> str:
        name = f"tool {self.tool_name[:80]!r}" if self.tool_name else "a tool"
        return f"{self.format} {name}: {self.path}: {self.message}"


# -- reading -------------------------------------------------------------------------------


def tool_from_mcp(
    definition: object,
    *,
    tier: Tier | None = None,
    capabilities: Iterable[ToolCapability] | None = None,
    policy: McpPolicy | None = None,
) -> Result[ToolSpec, FormatError]:
    """A :class:`ToolSpec` from an MCP tool definition.

    Give ``tier`` and ``capabilities``, or a ``policy`` that returns both from
    the definition. The annotations can only raise the tier or add capabilities.

    >>> spec = tool_from_mcp(
    ...     {"name": "read_file", "inputSchema": {"type": "object"},
    ...      "annotations": {"readOnlyHint": True, "openWorldHint": False}},
    ...     tier=Tier.AUTO, capabilities={ToolCapability.FILE_READ}).unwrap()
    >>> spec.tier, sorted(c.value for c in spec.capabilities)
    (<Tier.AUTO: 'auto'>, ['file_read'])
    >>> spec = tool_from_mcp({"name": "rm", "inputSchema": {"type": "object"}},
    ...                      tier=Tier.AUTO, capabilities=()).unwrap()
    >>> spec.tier, sorted(c.value for c in spec.capabilities)  # MCP's defaults: worst case
    (<Tier.CONFIRM: 'confirm'>, ['network_access'])
    """
    reader = _Reader("mcp", definition)
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
        ToolSpec(
            name=name,
            description=description or "",
            title=title or (annotations.get("title") if annotations else None),
            parameters=schema or {},
            output_schema=output_schema,
            tier=max(granted[0], floor_tier),
            capabilities=granted[1] | floor_capabilities,
        )
    )


def tool_from_definition(
    definition: object,
    *,
    tier: Tier = Tier.AUTO,
    capabilities: Iterable[ToolCapability] = (),
) -> Result[ToolSpec, FormatError]:
    """A :class:`ToolSpec` from a definition in any supported form, recognised by its keys.

    * MCP: ``inputSchema`` (read by :func:`tool_from_mcp`, hints included);
    * Anthropic: ``input_schema``;
    * OpenAI: ``{"type": "function", "function": {...}}`` or the flat Responses form;
    * this library's own: ``parameters`` with optional ``tier`` and ``capabilities``.

    ``tier`` and ``capabilities`` apply where the definition does not carry its own.

    >>> tool_from_definition({"name": "ls", "input_schema": {"type": "object"}}).unwrap().name
    'ls'
    """
    if not isinstance(definition, Mapping):
        return _Reader("definition", definition).fail("$", "a tool definition must be an object")
    if "inputSchema" in definition:
        return tool_from_mcp(definition, tier=tier, capabilities=capabilities)
    if definition.get("type") == "function":
        inner = definition.get("function", definition)
        path = "$.function" if "function" in definition else "$"
        return _plain(
            "openai", inner, "parameters", tier=tier, capabilities=capabilities, path=path
        )
    if "input_schema" in definition:
        return _plain(
            "anthropic", definition, "input_schema", tier=tier, capabilities=capabilities, path="$"
        )
    return _own(definition, tier, capabilities)


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
            return Failure(_under(spec.failure(), f"{path}[{index}]"))
        specs.append(spec.unwrap())
    return Success(tuple(specs))


def tool_definitions(
    document: object, *, tier: Tier = Tier.AUTO, capabilities: Iterable[ToolCapability] = ()
) -> Result[tuple[ToolSpec, ...], FormatError]:
    """Every tool of a JSON document: one definition, a list of them, or a ``tools`` list.

    Each item may be in any form :func:`tool_from_definition` reads.
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
            return Failure(_under(spec.failure(), f"{path}[{index}]"))
        specs.append(spec.unwrap())
    return Success(tuple(specs))


# -- writing -------------------------------------------------------------------------------


def tool_to_mcp(tool: Tool) -> Result[dict[str, Any], FormatError]:
    """The MCP definition of ``tool``; its annotations follow from its capabilities.

    >>> spec = ToolSpec(name="read_file", description="Read a file",
    ...                 parameters={"type": "object"}, capabilities={ToolCapability.FILE_READ})
    >>> tool_to_mcp(spec).unwrap()["annotations"]
    {'readOnlyHint': True, 'destructiveHint': False, 'openWorldHint': False}
    """
    exported = _exported("mcp", tool, MCP_TOOL_NAME, "1 to 128 of A-Z a-z 0-9 _ - .", "inputSchema")
    if isinstance(exported, FormatError):
        return Failure(exported)
    name, schema = exported
    capabilities = tool.capabilities
    definition: dict[str, Any] = {"name": name}
    title = tool.title if isinstance(tool, ToolSpec) else None
    if title:
        definition["title"] = title
    if tool.description:
        definition["description"] = tool.description
    definition["inputSchema"] = schema
    output_schema = tool.output_schema_as_written() if isinstance(tool, ToolSpec) else None
    if output_schema is not None:
        definition["outputSchema"] = output_schema
    definition["annotations"] = {
        "readOnlyHint": capabilities <= {ToolCapability.FILE_READ},
        "destructiveHint": bool(capabilities & _WRITES),
        "openWorldHint": bool(capabilities & _REACHES_OUT),
    }
    return Success(definition)


def tool_to_openai(tool: Tool, *, api: OpenAiApi = "chat") -> Result[dict[str, Any], FormatError]:
    """The OpenAI function tool for ``tool``, ``strict`` when its schema allows it.

    ``api="chat"`` gives Chat Completions' ``{"type": "function", "function": {...}}``;
    ``api="responses"`` the flat form of the Responses API.

    >>> spec = ToolSpec(name="echo", description="Echo", parameters={
    ...     "type": "object", "properties": {"text": {"type": "string"}},
    ...     "required": ["text"], "additionalProperties": False})
    >>> tool_to_openai(spec).unwrap()["function"]["strict"]
    True
    """
    exported = _exported("openai", tool, TOOL_NAME, "1 to 64 of A-Z a-z 0-9 _ -", "parameters")
    if isinstance(exported, FormatError):
        return Failure(exported)
    name, schema = exported
    function: dict[str, Any] = {"name": name}
    if tool.description:
        function["description"] = tool.description
    function["parameters"] = schema
    function["strict"] = fits_openai_strict(schema)
    if api == "responses":
        return Success({"type": "function", **function})
    return Success({"type": "function", "function": function})


def tool_to_anthropic(tool: Tool) -> Result[dict[str, Any], FormatError]:
    """The Anthropic tool definition for ``tool`` (``name``, ``description``, ``input_schema``).

    >>> spec = ToolSpec(name="echo", description="Echo", parameters={"type": "object"})
    >>> tool_to_anthropic(spec).unwrap()
    {'name': 'echo', 'description': 'Echo', 'input_schema': {'type': 'object'}}
    """
    exported = _exported("anthropic", tool, TOOL_NAME, "1 to 64 of A-Z a-z 0-9 _ -", "input_schema")
    if isinstance(exported, FormatError):
        return Failure(exported)
    name, schema = exported
    definition: dict[str, Any] = {"name": name}
    if tool.description:
        definition["description"] = tool.description
    definition["input_schema"] = schema
    return Success(definition)


def fits_openai_strict(schema: Mapping[str, Any]) -> bool:
    """Whether OpenAI's strict mode accepts ``schema`` as it is.

    Every object must list all its properties as required and forbid others,
    and only the keywords strict mode knows may appear.

    >>> fits_openai_strict({"type": "object", "properties": {"a": {"type": "string"}}})
    False
    """
    for node, _, _ in subschemas(schema):
        if not set(node) <= _OPENAI_STRICT_KEYWORDS:
            return False
        is_object = node.get("type") == "object" or "properties" in node
        if is_object:
            properties = node.get("properties", {})
            if node.get("additionalProperties") is not False:
                return False
            if not isinstance(properties, Mapping) or set(node.get("required", ())) != set(
                properties
            ):
                return False
    return True


# -- helpers -------------------------------------------------------------------------------


class _Reader:
    """Reads fields of one definition, keeping the first problem (with its path)."""

    def __init__(self, format_name: str, definition: object) -> None:
        self.format = format_name
        self.definition: Mapping[str, Any] = definition if isinstance(definition, Mapping) else {}
        found = self.definition.get("name")
        self.tool_name = found if isinstance(found, str) else ""
        self.error: FormatError | None = None

    def fail(self, path: str, message: str) -> Failure[FormatError]:
        return Failure(self._error(path, message))

    def _error(self, path: str, message: str) -> FormatError:
        return FormatError(format=self.format, tool_name=self.tool_name, path=path, message=message)

    def _note(self, path: str, message: str) -> None:
        if self.error is None:
            self.error = self._error(path, message)

    def name(self, key: str, rule: re.Pattern[str], rule_text: str) -> str:
        value = self.definition.get(key)
        if not isinstance(value, str):
            self._note(f"$.{key}", "a tool needs a string name")
            return ""
        if rule.fullmatch(value) is None:
            self._note(f"$.{key}", f"{value[:80]!r} is not a valid name: {rule_text}")
        return value

    def text(self, key: str) -> str | None:
        value = self.definition.get(key)
        if value is not None and not isinstance(value, str):
            self._note(f"$.{key}", f"{key} must be a string")
            return None
        return value

    def schema(self, key: str, *, required: bool) -> dict[str, Any] | None:
        value = self.definition.get(key)
        if value is None:
            if required:
                self._note("$", f"the definition has no {key}")
            return None
        if not isinstance(value, Mapping):
            self._note(f"$.{key}", "a schema must be a JSON object")
            return None
        schema = thaw_json(value) if not isinstance(value, dict) else value
        problem = _schema_problem(schema)
        if problem is not None:
            self._note(f"$.{key}{problem.path[1:]}", problem.message)
            return None
        return schema

    def annotations(self) -> Mapping[str, Any]:
        value = self.definition.get("annotations", {})
        if not isinstance(value, Mapping):
            self._note("$.annotations", "annotations must be an object")
            return {}
        for hint in ("readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"):
            if hint in value and not isinstance(value[hint], bool):
                self._note(f"$.annotations.{hint}", f"{hint} must be true or false")
        if "title" in value and not isinstance(value["title"], str):
            self._note("$.annotations.title", "title must be a string")
        return value


def _schema_problem(schema: Mapping[str, Any]) -> SchemaError | None:
    """Why a tool's argument schema is unusable: unsafe, invalid, or admitting no object."""
    refused = compile_schema(schema).swap().value_or(None)
    if refused is not None:
        return refused
    declared = schema.get("type")
    kinds = declared if isinstance(declared, list) else [declared]
    if declared is not None and "object" not in kinds:
        return SchemaError(
            path="$.type",
            message=f"tool arguments are a JSON object, but the schema's type is {declared!r}",
        )
    return None


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


def _plain(
    format_name: str,
    definition: object,
    schema_key: str,
    *,
    tier: Tier,
    capabilities: Iterable[ToolCapability],
    path: str,
) -> Result[ToolSpec, FormatError]:
    """An OpenAI or Anthropic definition: name, description and a schema; no hints."""
    reader = _Reader(format_name, definition)
    if not isinstance(definition, Mapping):
        return reader.fail(path, "a tool definition must be an object")
    name = reader.name("name", TOOL_NAME, "1 to 64 of A-Z a-z 0-9 _ -")
    description = reader.text("description")
    schema = reader.schema(schema_key, required=False)
    if reader.error is not None:
        return Failure(_under(reader.error, path))
    return Success(
        ToolSpec(
            name=name,
            description=description or "",
            parameters=schema or {},
            tier=tier,
            capabilities=frozenset(capabilities),
        )
    )


def _own(
    definition: Mapping[str, Any], tier: Tier, capabilities: Iterable[ToolCapability]
) -> Result[ToolSpec, FormatError]:
    """This library's definition: ``parameters``, ``tier`` and ``capabilities`` by value."""
    reader = _Reader("definition", definition)
    name = reader.name("name", TOOL_NAME, "1 to 64 of A-Z a-z 0-9 _ -")
    description = reader.text("description")
    schema = reader.schema("parameters", required=False)
    if reader.error is not None:
        return Failure(reader.error)
    raw_tier = definition.get("tier", tier.value)
    try:
        own_tier = Tier(raw_tier)
    except ValueError:
        known = ", ".join(t.value for t in Tier)
        return reader.fail("$.tier", f"{str(raw_tier)[:40]!r} is not a tier ({known})")
    raw = definition.get("capabilities", [c.value for c in capabilities])
    if not isinstance(raw, list):
        return reader.fail("$.capabilities", "capabilities must be a list")
    own: set[ToolCapability] = set()
    for index, value in enumerate(raw):
        try:
            own.add(ToolCapability(value))
        except ValueError:
            known = ", ".join(c.value for c in ToolCapability)
            return reader.fail(
                f"$.capabilities[{index}]", f"{str(value)[:40]!r} is not a capability ({known})"
            )
    return Success(
        ToolSpec(
            name=name,
            description=description or "",
            parameters=schema or {},
            tier=own_tier,
            capabilities=frozenset(own),
        )
    )


def tool_list(document: object) -> tuple[list[Any] | FormatError, str]:
    """The list of tool definitions in a document, and its JSON path.

    The document is a list, an object with ``tools``, or a JSON-RPC response
    whose ``result`` has ``tools``.
    """
    path = "$"
    if isinstance(document, Mapping) and "error" in document and "result" not in document:
        error = document["error"]
        detail = error.get("message", error) if isinstance(error, Mapping) else error
        return _list_error("$.error", f"the response is an error: {str(detail)[:200]}"), path
    if isinstance(document, Mapping) and isinstance(document.get("result"), Mapping):
        document, path = document["result"], "$.result"
    if isinstance(document, Mapping) and "tools" in document:
        document, path = document["tools"], f"{path}.tools"
    if not isinstance(document, list):
        return _list_error(path, "expected a list of tool definitions"), path
    return document, path


def _list_error(path: str, message: str) -> FormatError:
    return FormatError(format="tools", tool_name="", path=path, message=message)


def _under(error: FormatError, prefix: str) -> FormatError:
    """``error`` with its path placed under ``prefix`` (a definition inside a document)."""
    if prefix == "$":
        return error
    return FormatError(
        format=error.format,
        tool_name=error.tool_name,
        path=prefix + error.path[1:],
        message=error.message,
    )


def _exported(
    format_name: str, tool: Tool, rule: re.Pattern[str], rule_text: str, key: str
) -> tuple[str, dict[str, Any]] | FormatError:
    """The tool's name and argument schema as ``format_name`` takes them, or why it can't."""
    if rule.fullmatch(tool.name) is None:
        return FormatError(
            format=format_name,
            tool_name=tool.name,
            path="$.name",
            message=f"{format_name} tool names are {rule_text}",
        )
    schema = _export_schema(format_name, tool, key)
    if isinstance(schema, FormatError):
        return schema
    return tool.name, schema


def _export_schema(format_name: str, tool: Tool, key: str) -> dict[str, Any] | FormatError:
    schema: dict[str, Any] = (
        tool.schema_as_written() if isinstance(tool, ToolSpec) else thaw_json(tool.parameters)
    )
    problem = _schema_problem(schema)
    if problem is not None:
        return FormatError(
            format=format_name,
            tool_name=tool.name,
            path=f"$.{key}{problem.path[1:]}",
            message=problem.message,
        )
    if "type" not in schema:
        schema = {"type": "object", **schema}
    return schema
