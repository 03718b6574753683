"""Cline's and Roo Code's tasks, recorded as `CLINE`: `signs` tells a task's
``api_conversation_history.json``, `calls` reads it (imported only when a task is read),
`talk` its conversation, `usage` its tokens from the ``ui_messages.json`` beside it.
Only the registry (`agents`) imports it."""

from __future__ import annotations

from ...agent_format import AgentFormat, Companion, ExtensionHome, Home, Later, Shape
from .signs import EXPECTED, FORMAT, HISTORY, UI_MESSAGES, looks_like

CLINE = AgentFormat(
    name=FORMAT,
    expected=EXPECTED,
    document=Shape(4, looks_like, Later(f"{__name__}.calls", "read")),
    companion=Companion(
        HISTORY, UI_MESSAGES, "for the task's tokens", Later(f"{__name__}.usage", "with_usage")
    ),
    session_file=HISTORY,
    placed=Later(f"{__name__}.calls", "placed"),
    homes=(Home("Cline", 4, lambda places: places.home / ".cline" / "data" / "tasks"),),
    extension_homes=(
        ExtensionHome("Cline", 1, lambda storage: storage / "saoudrizwan.claude-dev" / "tasks"),
        ExtensionHome(
            "Roo Code", 2, lambda storage: storage / "rooveterinaryinc.roo-cline" / "tasks"
        ),
    ),
)
