"""Claude Code's session files, recorded as `CLAUDE_CODE`: `signs` tells one, `calls` reads
a session's calls and its conversation (imported only when a session is read; its results
are Anthropic's ``tool_result`` blocks, read as `anthropic_messages` reads them).
Only the registry (`agents`) imports it."""

from __future__ import annotations

from pathlib import Path

from ...agent_format import AgentFormat, Home, Later, Shape
from .signs import FORMAT, looks_like

CLAUDE_CODE = AgentFormat(
    name=FORMAT,
    expected="a Claude Code session: JSON Lines of user/assistant records with a sessionId",
    lines=Shape(5, looks_like, Later(f"{__name__}.calls", "read")),
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
