"""Gemini CLI's chats (JSON Lines, or the older document), recorded as `GEMINI_CLI`:
`calls` reads a chat's calls, `talk` its conversation.
Only the registry (`agents`) imports it; it imports the transcripts' common rooms and
the core."""

from __future__ import annotations

from pathlib import Path

from ...agent_format import AgentFormat, Home, Shape
from .calls import (
    EXPECTED,
    FORMAT,
    looks_like_document,
    looks_like_lines,
    placed,
    read_document,
    read_lines,
)

GEMINI_CLI = AgentFormat(
    name=FORMAT,
    expected=EXPECTED,
    lines=Shape(2, looks_like_lines, read_lines),
    document=Shape(3, looks_like_document, read_document),
    placed=placed,
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
