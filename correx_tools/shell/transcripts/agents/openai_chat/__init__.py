"""OpenAI chat message lists an agent loop keeps, recorded as `OPENAI_CHAT`: `signs` tells
one, `calls` reads a list's calls (imported only when a list is read), `talk` its
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


OPENAI_CHAT = AgentFormat(
    name=FORMAT,
    expected="an OpenAI chat message list holding tool_calls",
    document=Shape(7, looks_like, _read),
)
