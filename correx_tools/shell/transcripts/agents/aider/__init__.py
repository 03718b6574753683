"""Aider's chat histories (``.aider.chat.history.md``, Markdown), recorded as `AIDER`:
`calls` reads a history's edits and commands, `talk` its conversation.
Only the registry (`agents`) imports it; it imports the transcripts' common rooms and
the core."""

from __future__ import annotations

from ...agent_format import AgentFormat, Shape
from .calls import EXPECTED, FORMAT, looks_like, read

AIDER = AgentFormat(
    name=FORMAT,
    expected=EXPECTED,
    called="an Aider history",
    markdown=Shape(1, looks_like, read),
    session_file=".aider.chat.history.md",
)
