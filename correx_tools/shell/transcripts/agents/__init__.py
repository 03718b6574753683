"""Every transcript format this package reads: a package each, exporting one `AgentFormat`.

`REGISTRY` lists the records in the order a message or ``--format`` names them;
the machinery loops over it and names no format. Imports each format's package, whose
record imports only the format's `signs` (what a file of it looks like): its readers
(which import `common`, `model`, `errors` and the core) are imported when a file of it is
read. The machinery imports it.
"""

from __future__ import annotations

from ..agent_format import AgentFormat
from .aider import AIDER
from .anthropic_messages import ANTHROPIC_MESSAGES
from .claude_code import CLAUDE_CODE
from .cline import CLINE
from .codex import CODEX
from .gemini import GEMINI_CLI
from .goose import GOOSE
from .mcp import MCP
from .mini_swe_agent import MINI_SWE_AGENT
from .openai_chat import OPENAI_CHAT
from .opencode import OPENCODE
from .openhands import OPENHANDS, OPENHANDS_COMPLETIONS
from .swe_agent import SWE_AGENT

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
    MINI_SWE_AGENT,
    OPENHANDS_COMPLETIONS,
    OPENAI_CHAT,
    ANTHROPIC_MESSAGES,
)
"""Every format, in the order a message or ``--format`` names them."""
