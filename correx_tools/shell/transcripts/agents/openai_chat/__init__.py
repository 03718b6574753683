"""OpenAI chat message lists an agent loop keeps, recorded as `OPENAI_CHAT`: `calls`
reads a list's calls, `talk` its conversation.
Only the registry (`agents`) imports it; it imports the transcripts' common rooms and
the core."""

from __future__ import annotations

from ...agent_format import AgentFormat, Shape
from .calls import FORMAT, looks_like, read

OPENAI_CHAT = AgentFormat(
    name=FORMAT,
    expected="an OpenAI chat message list holding tool_calls",
    document=Shape(7, looks_like, read),
)
