"""OpenAI chat message lists an agent loop keeps: `calls` reads a list's calls, `talk` its
conversation.

Exports the format's one record, `OPENAI_CHAT`, which `agents.REGISTRY` lists; imports
`agent_format`, `model`, `common`, the stores' strict JSON and the core.
"""

from __future__ import annotations

from ...agent_format import AgentFormat, Shape
from .calls import FORMAT, looks_like, read

OPENAI_CHAT = AgentFormat(
    name=FORMAT,
    expected="an OpenAI chat message list holding tool_calls",
    document=Shape(7, looks_like, read),
)
