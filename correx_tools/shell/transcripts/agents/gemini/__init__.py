"""Gemini CLI's chats (JSON Lines, or the older document), recorded as `GEMINI_CLI`: `signs`
tells one, `calls` reads a chat's calls (imported only when a chat is read), `talk` its
conversation.
Only the registry (`agents`) imports it; it imports the transcripts' common rooms and
the core."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...agent_format import AgentFormat, Home, Shape
from ...model import Transcript
from .signs import EXPECTED, FORMAT, looks_like_document, looks_like_lines


def _read_lines(records: Any, name: str) -> Transcript:
    from .calls import read_lines  # noqa: PLC0415 - the reader, when a file of it is read

    return read_lines(records, name)


def _read_document(document: Any, name: str) -> Transcript:
    from .calls import read_document  # noqa: PLC0415 - the reader, when a file of it is read

    return read_document(document, name)


def _placed(transcript: Transcript, path: Path) -> Transcript:
    from .calls import placed  # noqa: PLC0415 - read already, when a file of it is placed

    return placed(transcript, path)


GEMINI_CLI = AgentFormat(
    name=FORMAT,
    expected=EXPECTED,
    lines=Shape(2, looks_like_lines, _read_lines),
    document=Shape(3, looks_like_document, _read_document),
    placed=_placed,
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
