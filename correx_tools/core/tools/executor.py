"""Running a tool is delegated: the executor contract and its result."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol, TypeAlias, final

from pyrsistent import pmap

from .ids import InvocationId
from .json_values import freeze_json, string_map
from .request import ToolRequest


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolSuccess:
    """The tool ran to the end: its JSON output, exit code and string metadata."""

    invocation_id: InvocationId
    output: Any = None
    exit_code: int = 0
    metadata: Mapping[str, str] = field(default_factory=pmap)

    def __post_init__(self) -> None:
        object.__setattr__(self, "output", freeze_json(self.output))
        object.__setattr__(self, "metadata", string_map(self.metadata))


@final
@dataclass(frozen=True, slots=True, kw_only=True)
class ToolFailure:
    """The tool failed; ``recoverable`` says whether running it again may succeed."""

    invocation_id: InvocationId
    reason: str
    recoverable: bool


ToolResult: TypeAlias = ToolSuccess | ToolFailure
"""The outcome of `ToolExecutor.execute`."""


class ToolExecutor(Protocol):
    """Runs tool requests; implemented by adapters outside this library."""

    def execute(self, invocation_id: InvocationId, request: ToolRequest) -> ToolResult:
        """Run ``request`` and report how it went."""
        ...
