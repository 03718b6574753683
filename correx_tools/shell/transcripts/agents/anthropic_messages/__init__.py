"""Anthropic Messages lists an agent loop keeps, recorded as `ANTHROPIC_MESSAGES`: `signs`
tells one, `calls` reads a list's calls (and says how a ``tool_result`` ends its call, for
Claude Code's reader too; imported only when a list is read), `talk` its conversation.
Only the registry (`agents`) imports it."""

from __future__ import annotations

from ...agent_format import AgentFormat, Later, Shape
from .signs import FORMAT, looks_like

ANTHROPIC_MESSAGES = AgentFormat(
    name=FORMAT,
    expected="an Anthropic Messages list holding tool_use blocks",
    document=Shape(8, looks_like, Later(f"{__name__}.calls", "read")),
)
