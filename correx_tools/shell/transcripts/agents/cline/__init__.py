"""Cline's and Roo Code's tasks, recorded as `CLINE`: `calls` reads a task's
``api_conversation_history.json``, `talk` its conversation, `usage` its tokens from the
``ui_messages.json`` beside it.
Only the registry (`agents`) imports it; it imports the transcripts' common rooms and
the core."""

from __future__ import annotations

from ...agent_format import AgentFormat, Companion, ExtensionHome, Home, Shape
from .calls import EXPECTED, FORMAT, HISTORY, looks_like, placed, read
from .usage import UI_MESSAGES, with_usage

CLINE = AgentFormat(
    name=FORMAT,
    expected=EXPECTED,
    document=Shape(4, looks_like, read),
    companion=Companion(HISTORY, UI_MESSAGES, "for the task's tokens", with_usage),
    session_file=HISTORY,
    placed=placed,
    homes=(Home("Cline", 4, lambda places: places.home / ".cline" / "data" / "tasks"),),
    extension_homes=(
        ExtensionHome("Cline", 1, lambda storage: storage / "saoudrizwan.claude-dev" / "tasks"),
        ExtensionHome(
            "Roo Code", 2, lambda storage: storage / "rooveterinaryinc.roo-cline" / "tasks"
        ),
    ),
)
