"""OpenCode's exports (``opencode export``), recorded as `OPENCODE`: `calls` reads an
export's calls, `talk` its conversation.
Only the registry (`agents`) imports it; it imports the transcripts' common rooms and
the core."""

from __future__ import annotations

from ...agent_format import AgentFormat, Shape
from .calls import EXPECTED, FORMAT, looks_like, read

OPENCODE = AgentFormat(
    name=FORMAT,
    expected=EXPECTED,
    document=Shape(1, looks_like, read),
)
