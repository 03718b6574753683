"""Every transcript format this package reads, one `AgentFormat` record each.

`REGISTRY` lists them in the order a message or ``--format`` names them; the
machinery loops over it. Imports the formats' readers and `agent_format`; the
machinery imports it.
"""

from __future__ import annotations

from .. import messages
from ..agent_format import AgentFormat, Shape
from .aider import AIDER
from .claude_code import CLAUDE_CODE
from .cline import CLINE
from .codex import CODEX
from .gemini import GEMINI_CLI
from .goose import GOOSE
from .mcp import MCP
from .opencode import OPENCODE
from .openhands import OPENHANDS
from .swe_agent import SWE_AGENT


def _messages(kind: str) -> Shape:
    def looks_like(document: object) -> bool:
        found = messages.messages_of(document)
        return found is not None and messages.kind_of(found[0]) == kind

    return Shape(
        7 if kind == messages.OPENAI else 8,
        looks_like,
        lambda document, name: messages.read(document, name, kind),
    )


OPENAI_CHAT = AgentFormat(
    name=messages.OPENAI,
    expected="an OpenAI chat message list holding tool_calls",
    document=_messages(messages.OPENAI),
)
ANTHROPIC_MESSAGES = AgentFormat(
    name=messages.ANTHROPIC,
    expected="an Anthropic Messages list holding tool_use blocks",
    document=_messages(messages.ANTHROPIC),
)

REGISTRY: tuple[AgentFormat, ...] = (
    CLAUDE_CODE,
    CODEX,
    GEMINI_CLI,
    MCP,
    GOOSE,
    OPENCODE,
    CLINE,
    AIDER,
    SWE_AGENT,
    OPENHANDS,
    OPENAI_CHAT,
    ANTHROPIC_MESSAGES,
)
"""Every format, in the order a message or ``--format`` names them."""
