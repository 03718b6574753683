"""MCP traffic: JSON-RPC messages between a client and a server, one a line; `calls`
reads their tool calls (MCP records no conversation).

Exports the format's one record, `MCP`, which `agents.REGISTRY` lists; imports
`agent_format`, `model`, `common` and the core.
"""

from __future__ import annotations

from ...agent_format import AgentFormat, Shape
from .calls import EXPECTED, FORMAT, looks_like, read

MCP = AgentFormat(name=FORMAT, expected=EXPECTED, lines=Shape(3, looks_like, read))
