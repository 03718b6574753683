"""Cline's and Roo Code's tasks, recorded as `CLINE`: `signs` tells a task's
``api_conversation_history.json``, `calls` reads it (imported only when a task is read),
`talk` its conversation, `usage` its tokens from the ``ui_messages.json`` beside it.
Only the registry (`agents`) imports it; it imports the transcripts' common rooms and
the core."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...agent_format import AgentFormat, Companion, ExtensionHome, Home, Shape
from ...model import Transcript
from .signs import EXPECTED, FORMAT, HISTORY, UI_MESSAGES, looks_like


def _read(document: Any, name: str) -> Transcript:
    from .calls import read  # noqa: PLC0415 - the reader, when a file of it is read

    return read(document, name)


def _placed(transcript: Transcript, path: Path) -> Transcript:
    from .calls import placed  # noqa: PLC0415 - read already, when a file of it is placed

    return placed(transcript, path)


def _with_usage(transcript: Transcript, data: bytes) -> Transcript:
    from .usage import with_usage  # noqa: PLC0415 - when a task's companion is read

    return with_usage(transcript, data)


CLINE = AgentFormat(
    name=FORMAT,
    expected=EXPECTED,
    document=Shape(4, looks_like, _read),
    companion=Companion(HISTORY, UI_MESSAGES, "for the task's tokens", _with_usage),
    session_file=HISTORY,
    placed=_placed,
    homes=(Home("Cline", 4, lambda places: places.home / ".cline" / "data" / "tasks"),),
    extension_homes=(
        ExtensionHome("Cline", 1, lambda storage: storage / "saoudrizwan.claude-dev" / "tasks"),
        ExtensionHome(
            "Roo Code", 2, lambda storage: storage / "rooveterinaryinc.roo-cline" / "tasks"
        ),
    ),
)
