"""Anthropic tool definitions (``name``, ``description``, ``input_schema``), written."""

from __future__ import annotations

from typing import Any

from returns.result import Failure, Result, Success

from ..tool import Tool
from ._reader import PORTABLE_NAME_RULE, TOOL_NAME, FormatError, exported


def tool_to_anthropic(tool: Tool) -> Result[dict[str, Any], FormatError]:
    """The Anthropic tool definition for ``tool`` (``name``, ``description``, ``input_schema``).

    >>> from correx_tools.core.tools.spec import ToolSpec
    >>> spec = ToolSpec(name="echo", description="Echo", parameters={"type": "object"})
    >>> tool_to_anthropic(spec).unwrap()
    {'name': 'echo', 'description': 'Echo', 'input_schema': {'type': 'object'}}
    """
    written = exported("anthropic", tool, TOOL_NAME, PORTABLE_NAME_RULE, "input_schema")
    if isinstance(written, FormatError):
        return Failure(written)
    name, schema = written
    definition: dict[str, Any] = {"name": name}
    if tool.description:
        definition["description"] = tool.description
    definition["input_schema"] = schema
    return Success(definition)
