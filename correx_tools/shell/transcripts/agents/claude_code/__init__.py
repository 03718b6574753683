"""Claude Code's session files: `calls` reads a session's calls and its conversation.

Exports the format's one record, `CLAUDE_CODE`, which `agents.REGISTRY` lists; imports
`agent_format`, `model`, `common`, the Anthropic Messages reader (Claude Code
keeps the API's messages) and the core.
"""

from __future__ import annotations

from pathlib import Path

from ...agent_format import AgentFormat, Home, Shape
from .calls import FORMAT, looks_like, read

CLAUDE_CODE = AgentFormat(
    name=FORMAT,
    expected="a Claude Code session: JSON Lines of user/assistant records with a sessionId",
    lines=Shape(5, looks_like, read),
    homes=(
        Home(
            "Claude Code",
            1,
            lambda places: (
                Path(places.environ.get("CLAUDE_CONFIG_DIR") or places.home / ".claude")
                / "projects"
            ),
        ),
    ),
)
