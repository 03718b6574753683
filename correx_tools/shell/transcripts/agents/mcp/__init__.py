"""MCP traffic (JSON-RPC messages between a client and a server, one a line), recorded
as `MCP`: `signs` tells it, `calls` reads its tool calls (imported only when traffic is
read); MCP records no conversation.
Only the registry (`agents`) imports it."""

from __future__ import annotations

from ...agent_format import AgentFormat, Later, Shape
from .signs import EXPECTED, FORMAT, looks_like

MCP = AgentFormat(
    name=FORMAT, expected=EXPECTED, lines=Shape(3, looks_like, Later(f"{__name__}.calls", "read"))
)
