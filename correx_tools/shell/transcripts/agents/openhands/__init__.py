"""OpenHands' event histories, recorded as `OPENHANDS`: `signs` tells one, `calls` reads a
history's actions and observations (imported only when a history is read), `talk` its
conversation.
Only the registry (`agents`) imports it; it imports the transcripts' common rooms and
the core."""

from __future__ import annotations

from typing import Any

from ...agent_format import AgentFormat, Shape
from ...model import Transcript
from .signs import FORMAT, looks_like


def _read(document: Any, name: str) -> Transcript:
    from .calls import read  # noqa: PLC0415 - the reader, when a file of it is read

    return read(document, name)


OPENHANDS = AgentFormat(
    name=FORMAT,
    expected="an OpenHands history: a list of events, or an object with history",
    document=Shape(6, looks_like, _read),
)
