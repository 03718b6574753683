"""OpenAI Codex CLI's rollouts, recorded as `CODEX`: `calls` reads a rollout's calls,
`talk` its conversation.
Only the registry (`agents`) imports it; it imports the transcripts' common rooms and
the core."""

from __future__ import annotations

from pathlib import Path

from ...agent_format import AgentFormat, Home, Shape
from .calls import EXPECTED, FORMAT, looks_like, read

CODEX = AgentFormat(
    name=FORMAT,
    expected=EXPECTED,
    lines=Shape(1, looks_like, read),
    homes=(
        Home(
            "Codex CLI",
            2,
            lambda places: (
                Path(places.environ.get("CODEX_HOME") or places.home / ".codex") / "sessions"
            ),
        ),
    ),
)
