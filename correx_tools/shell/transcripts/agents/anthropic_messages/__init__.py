"""Anthropic Messages lists an agent loop keeps: `calls` reads a list's calls (and holds
how a ``tool_result`` ends its call, which Claude Code's reader shares), `talk` its
conversation.

Exports the format's one record, `ANTHROPIC_MESSAGES`, which `agents.REGISTRY` lists;
imports `agent_format`, `model`, `common` and the core.
"""

from __future__ import annotations

from ...agent_format import AgentFormat, Shape
from .calls import FORMAT, looks_like, read

ANTHROPIC_MESSAGES = AgentFormat(
    name=FORMAT,
    expected="an Anthropic Messages list holding tool_use blocks",
    document=Shape(8, looks_like, read),
)
