"""Gemini CLI's chats (JSON Lines, or the older document), recorded as `GEMINI_CLI`: `signs`
tells one, `calls` reads a chat's calls (imported only when a chat is read), `talk` its
conversation.
Only the registry (`agents`) imports it."""

from __future__ import annotations

from pathlib import Path

from ...agent_format import AgentFormat, Home, Later, Shape
from .signs import EXPECTED, FORMAT, looks_like_document, looks_like_lines

GEMINI_CLI = AgentFormat(
    name=FORMAT,
    expected=EXPECTED,
    lines=Shape(2, looks_like_lines, Later(f"{__name__}.calls", "read_lines")),
    document=Shape(3, looks_like_document, Later(f"{__name__}.calls", "read_document")),
    placed=Later(f"{__name__}.calls", "placed"),
    homes=(
        Home(
            "Gemini CLI",
            3,
            lambda places: (
                Path(places.environ.get("GEMINI_CLI_HOME") or places.home) / ".gemini" / "tmp"
            ),
        ),
    ),
)
