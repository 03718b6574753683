"""The tool contract: what every tool declares, as protocols."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import PurePosixPath
from typing import Any, Protocol, runtime_checkable

from .capability import ToolCapability
from .request import ToolRequest
from .tier import Tier


@runtime_checkable
class Tool(Protocol):
    """An executable tool as the agent sees it.

    ``parameters`` is the JSON Schema of its arguments (Draft 2020-12 unless
    the schema's ``$schema`` says otherwise).
    """

    @property
    def name(self) -> str:
        """The unique name the model calls the tool by."""
        ...

    @property
    def description(self) -> str:
        """What the tool does, for the model."""
        ...

    @property
    def parameters(self) -> Mapping[str, Any]:
        """The JSON Schema of the arguments."""
        ...

    @property
    def tier(self) -> Tier:
        """The approval tier the tool needs."""
        ...

    @property
    def capabilities(self) -> frozenset[ToolCapability]:
        """The effects the tool may have."""
        ...


@runtime_checkable
class FileAffectingTool(Tool, Protocol):
    """A tool that touches files: it says which, for a given request."""

    def affected_paths(self, request: ToolRequest) -> frozenset[PurePosixPath]:
        """The workspace-relative paths ``request`` would read or write."""
        ...


@runtime_checkable
class DescribedTool(Tool, Protocol):
    """A tool that also has a display title, an output schema, and its schemas as written.

    `ToolSpec` is one; the formats write what such a tool offers
    and fall back on `Tool`'s own fields for any other.
    """

    @property
    def title(self) -> str | None:
        """A display name, if the tool has one."""
        ...

    def schema_as_written(self) -> dict[str, Any]:
        """The parameter schema as a plain ``dict``, keys in the order they were given."""
        ...

    def output_schema_as_written(self) -> dict[str, Any] | None:
        """The output schema as a plain ``dict``, if there is one."""
        ...
