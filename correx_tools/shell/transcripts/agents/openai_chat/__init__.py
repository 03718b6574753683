"""OpenAI chat message lists an agent loop keeps, recorded as `OPENAI_CHAT`: `signs` tells
one, `calls` reads a list's calls (imported only when a list is read), `talk` its
conversation.
Only the registry (`agents`) imports it."""

from __future__ import annotations

from ...agent_format import AgentFormat, Later, Shape
from .signs import FORMAT, looks_like

OPENAI_CHAT = AgentFormat(
    name=FORMAT,
    expected="an OpenAI chat message list holding tool_calls",
    document=Shape(7, looks_like, Later(f"{__name__}.calls", "read")),
)
