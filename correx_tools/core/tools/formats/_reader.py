"""What every outside format shares: the error, the fields a definition gives, and the reader.

A definition from outside is a stranger's: `Reader` checks each field it
takes and keeps the first problem with its JSON path. Every format reads a
definition into `ToolFields` (a `ToolSpec`'s fields), so
that the formats need not build specs themselves (``spec.py`` builds them from
these fields, and calls the formats to write them).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any, NamedTuple, final

from returns.result import Failure

from ..capability import ToolCapability
from ..errors import CorrexError, error_value
from ..json_values import thaw_json
from ..schema.compiled import SchemaError, compile_schema
from ..tier import Tier
from ..tool import DescribedTool, Tool

TOOL_NAME = re.compile(r"[A-Za-z0-9_-]{1,64}")
"""The tool names MCP, OpenAI and Anthropic all accept (and the registry requires)."""

MCP_TOOL_NAME = re.compile(r"[A-Za-z0-9_.-]{1,128}")
"""The tool names MCP accepts (its specification of 2025-11-25)."""

PORTABLE_NAME_RULE = "1 to 64 of A-Z a-z 0-9 _ -"


@final
@error_value
class FormatError(CorrexError):
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


@final
class ToolFields(NamedTuple):
    """What a definition says of a tool: the fields of a ``ToolSpec``, as read."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    tier: Tier
    capabilities: frozenset[ToolCapability]
    title: str | None = None
    output_schema: Mapping[str, Any] | None = None
    mcp_members: Mapping[str, Any] | None = None


class Reader:
    """Reads fields of one definition, keeping the first problem (with its path)."""

    def __init__(self, format_name: str, definition: object) -> None:
        self.format = format_name
        self.definition: Mapping[str, Any] = definition if isinstance(definition, Mapping) else {}
        found = self.definition.get("name")
        self.tool_name = found if isinstance(found, str) else ""
        self.error: FormatError | None = None

    def fail(self, path: str, message: str) -> Failure[FormatError]:
        """A failure naming ``path`` in this definition."""
        return Failure(self._error(path, message))

    def _error(self, path: str, message: str) -> FormatError:
        return FormatError(format=self.format, tool_name=self.tool_name, path=path, message=message)

    def _note(self, path: str, message: str) -> None:
        if self.error is None:
            self.error = self._error(path, message)

    def name(self, key: str, rule: re.Pattern[str], rule_text: str) -> str:
        """The tool's name under ``key``, checked against ``rule``."""
        value = self.definition.get(key)
        if not isinstance(value, str):
            self._note(f"$.{key}", "a tool needs a string name")
            return ""
        if rule.fullmatch(value) is None:
            self._note(f"$.{key}", f"{value[:80]!r} is not a valid name: {rule_text}")
        return value

    def text(self, key: str) -> str | None:
        """An optional string field."""
        value = self.definition.get(key)
        if value is not None and not isinstance(value, str):
            self._note(f"$.{key}", f"{key} must be a string")
            return None
        return value

    def schema(self, key: str, *, required: bool) -> dict[str, Any] | None:
        """A schema field, checked as a tool's argument schema."""
        value = self.definition.get(key)
        if value is None:
            if required:
                self._note("$", f"the definition has no {key}")
            return None
        if not isinstance(value, Mapping):
            self._note(f"$.{key}", "a schema must be a JSON object")
            return None
        schema = thaw_json(value) if not isinstance(value, dict) else value
        problem = schema_problem(schema)
        if problem is not None:
            self._note(f"$.{key}{problem.path[1:]}", problem.message)
            return None
        return schema

    def annotations(self) -> Mapping[str, Any]:
        """MCP's ``annotations``: each hint a boolean, ``title`` a string."""
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


def schema_problem(schema: Mapping[str, Any]) -> SchemaError | None:
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


def tool_list(document: object) -> tuple[list[Any] | FormatError, str]:
    """The list of tool definitions in a document, and its JSON path.

    The document is a list, an object with ``tools``, or a JSON-RPC response
    whose ``result`` has ``tools``.
    """
    path = "$"
    if isinstance(document, Mapping) and "error" in document and "result" not in document:
        error = document["error"]
        detail = error.get("message", error) if isinstance(error, Mapping) else error
        return list_error("$.error", f"the response is an error: {str(detail)[:200]}"), path
    if isinstance(document, Mapping) and isinstance(document.get("result"), Mapping):
        document, path = document["result"], "$.result"
    if isinstance(document, Mapping) and "tools" in document:
        document, path = document["tools"], f"{path}.tools"
    if not isinstance(document, list):
        return list_error(path, "expected a list of tool definitions"), path
    return document, path


def list_error(path: str, message: str) -> FormatError:
    """A problem with a document of tools as a whole (not with one tool)."""
    return FormatError(format="tools", tool_name="", path=path, message=message)


def under(error: FormatError, prefix: str) -> FormatError:
    """``error`` with its path placed under ``prefix`` (a definition inside a document)."""
    if prefix == "$":
        return error
    return FormatError(
        format=error.format,
        tool_name=error.tool_name,
        path=prefix + error.path[1:],
        message=error.message,
    )


def exported(
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
    schema: dict[str, Any] = (
        tool.schema_as_written() if isinstance(tool, DescribedTool) else thaw_json(tool.parameters)
    )
    problem = schema_problem(schema)
    if problem is not None:
        return FormatError(
            format=format_name,
            tool_name=tool.name,
            path=f"$.{key}{problem.path[1:]}",
            message=problem.message,
        )
    if "type" not in schema:
        schema = {"type": "object", **schema}
    return tool.name, schema
