"""MCP traffic (JSON-RPC messages between a client and a server, one a line), recorded
as `MCP`: `signs` tells it, `calls` reads its tool calls (imported only when traffic is
read); MCP records no conversation.
Only the registry (`agents`) imports it; it imports the transcripts' common rooms and
the core."""

from __future__ import annotations

from typing import Any

from ...agent_format import AgentFormat, Shape
from ...model import Transcript
from .signs import EXPECTED, FORMAT, looks_like


def _read(records: Any, name: str) -> Transcript:
    from .calls import read  # noqa: PLC0415 - the reader, when a file of it is read

    return read(records, name)


MCP = AgentFormat(name=FORMAT, expected=EXPECTED, lines=Shape(3, looks_like, _read))
