"""OpenAI Codex CLI's rollouts, recorded as `CODEX`: `signs` tells one, `calls` reads a
rollout's calls (imported only when a rollout is read), `talk` its conversation.
Only the registry (`agents`) imports it."""

from __future__ import annotations

from pathlib import Path

from ...agent_format import AgentFormat, Home, Later, Shape
from .signs import EXPECTED, FORMAT, looks_like

CODEX = AgentFormat(
    name=FORMAT,
    expected=EXPECTED,
    lines=Shape(1, looks_like, Later(f"{__name__}.calls", "read")),
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
