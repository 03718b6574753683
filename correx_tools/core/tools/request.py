"""A call of a tool: the tool's name and the JSON object of its arguments."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, final

from pyrsistent import pmap

from .json_values import freeze_object


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolRequest:
    """A call of a tool: its name and the JSON object of its arguments.

    >>> ToolRequest(tool_name="read_file", arguments={"path": "README.md"})
    ToolRequest(tool_name='read_file', arguments=pmap({'path': 'README.md'}))
    """

    tool_name: str
    arguments: Mapping[str, Any] = field(default_factory=pmap)
    """The arguments, always stored as a frozen ``PMap``."""

    def __post_init__(self) -> None:
        if not isinstance(self.tool_name, str):
            raise TypeError(f"tool_name must be a str, not {type(self.tool_name).__name__}")
        object.__setattr__(self, "arguments", freeze_object(self.arguments))
