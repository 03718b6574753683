"""OpenAI function tools (Chat Completions and Responses), both ways.

A definition is read as a plain one (name, description, a schema; OpenAI has
no hints), and written ``strict`` when its schema fits OpenAI's strict subset
as it is, or, when asked, rewritten into that subset (``openai_strict``).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, TypeAlias

from returns.result import Failure, Result, Success

from ..tool import Tool
from ._reader import PORTABLE_NAME_RULE, TOOL_NAME, FormatError, exported
from .openai_strict import NotStrict, fits_strict, root_problem, strict_schema

OpenAiApi: TypeAlias = Literal["chat", "responses"]
"""OpenAI's Chat Completions (``function`` nested) or Responses (flat) tool shape."""


def tool_to_openai(
    tool: Tool, *, api: OpenAiApi = "chat", strict: bool | None = None
) -> Result[dict[str, Any], FormatError]:
    """The OpenAI function tool for ``tool``.

    ``api="chat"`` gives Chat Completions' ``{"type": "function", "function": {...}}``;
    ``api="responses"`` the flat form of the Responses API. ``strict=None``
    marks it ``strict`` when the schema already fits strict mode, as written;
    ``strict=True`` rewrites the schema into strict mode's subset (see
    `openai_strict`) or is a `FormatError` saying why it cannot; ``strict=False``
    never marks it. A root schema OpenAI refuses outright (nullable, a union)
    is an error in every mode.

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
    refused = root_problem(schema)
    if refused is not None:
        return Failure(_error(tool, refused[0], refused[1]))
    if strict is True:
        try:
            schema = strict_schema(schema)
        except NotStrict as why:
            return Failure(_error(tool, why.path, why.message))
    function: dict[str, Any] = {"name": name}
    if tool.description:
        function["description"] = tool.description
    function["parameters"] = schema
    function["strict"] = strict is True or (strict is None and fits_strict(schema))
    if api == "responses":
        return Success({"type": "function", **function})
    return Success({"type": "function", "function": function})


def fits_openai_strict(schema: Mapping[str, Any]) -> bool:
    """Whether OpenAI's strict mode accepts ``schema`` as it is (see `openai_strict`).

    >>> fits_openai_strict({"type": "object", "properties": {"a": {"type": "string"}}})
    False
    """
    return fits_strict(schema)


def _error(tool: Tool, path: str, message: str) -> FormatError:
    """A problem with ``tool``'s parameters at ``path`` (a path inside the schema)."""
    return FormatError(
        format="openai", tool_name=tool.name, path=f"$.parameters{path[1:]}", message=message
    )
