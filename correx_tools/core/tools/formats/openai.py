"""OpenAI function tools (Chat Completions and Responses), both ways.

A definition is read as a plain one (name, description, a schema; OpenAI has
no hints), and written ``strict`` only when its schema already fits OpenAI's
strict subset.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

from returns.result import Failure, Result, Success

from ..schema.walk import subschemas
from ..tool import Tool
from ._reader import PORTABLE_NAME_RULE, TOOL_NAME, FormatError, exported

OpenAiApi: TypeAlias = Literal["chat", "responses"]
"""OpenAI's Chat Completions (``function`` nested) or Responses (flat) tool shape."""

# The keywords OpenAI's strict mode (Structured Outputs) accepts in a function's schema.
_OPENAI_STRICT_KEYWORDS = frozenset(
    {
        "type", "properties", "required", "additionalProperties", "items", "enum", "const",
        "anyOf", "$ref", "$defs", "description", "title", "pattern", "format", "minimum",
        "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf", "minItems", "maxItems",
    }
)  # fmt: skip


def tool_to_openai(tool: Tool, *, api: OpenAiApi = "chat") -> Result[dict[str, Any], FormatError]:
    """The OpenAI function tool for ``tool``, ``strict`` when its schema allows it.

    ``api="chat"`` gives Chat Completions' ``{"type": "function", "function": {...}}``;
    ``api="responses"`` the flat form of the Responses API.

    >>> from correx_tools.core.tools.spec import ToolSpec
    >>> spec = ToolSpec(name="echo", description="Echo", parameters={
    ...     "type": "object", "properties": {"text": {"type": "string"}},
    ...     "required": ["text"], "additionalProperties": False})
    >>> tool_to_openai(spec).unwrap()["function"]["strict"]
    True
    """
    written = exported("openai", tool, TOOL_NAME, PORTABLE_NAME_RULE, "parameters")
    if isinstance(written, FormatError):
        return Failure(written)
    name, schema = written
    function: dict[str, Any] = {"name": name}
    if tool.description:
        function["description"] = tool.description
    function["parameters"] = schema
    function["strict"] = fits_openai_strict(schema)
    if api == "responses":
        return Success({"type": "function", **function})
    return Success({"type": "function", "function": function})


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
