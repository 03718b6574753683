"""OpenCode's exports (``opencode export``), recorded as `OPENCODE`: `signs` tells one, `calls`
reads an export's calls (imported only when an export is read), `talk` its conversation.
Only the registry (`agents`) imports it."""

from __future__ import annotations

from ...agent_format import AgentFormat, Later, Shape
from .signs import EXPECTED, FORMAT, looks_like

OPENCODE = AgentFormat(
    name=FORMAT,
    expected=EXPECTED,
    document=Shape(1, looks_like, Later(f"{__name__}.calls", "read")),
)
