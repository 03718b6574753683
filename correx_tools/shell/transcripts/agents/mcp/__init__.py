"""MCP traffic (JSON-RPC messages between a client and a server, one a line), recorded
as `MCP`: `calls` reads its tool calls; MCP records no conversation.
Only the registry (`agents`) imports it; it imports the transcripts' common rooms and
the core."""

from __future__ import annotations

from ...agent_format import AgentFormat, Shape
from .calls import EXPECTED, FORMAT, looks_like, read

MCP = AgentFormat(name=FORMAT, expected=EXPECTED, lines=Shape(3, looks_like, read))
