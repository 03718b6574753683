"""Aider's chat histories (``.aider.chat.history.md``, Markdown), recorded as `AIDER`:
`signs` tells one, `calls` reads a history's edits and commands (imported only when a
history is read), `talk` its conversation.
Only the registry (`agents`) imports it."""

from __future__ import annotations

from ...agent_format import AgentFormat, Later, Shape
from .signs import EXPECTED, FORMAT, looks_like

AIDER = AgentFormat(
    name=FORMAT,
    expected=EXPECTED,
    called="an Aider history",
    markdown=Shape(1, looks_like, Later(f"{__name__}.calls", "read")),
    session_file=".aider.chat.history.md",
)
