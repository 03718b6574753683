"""OpenCode's exports (``opencode export``), recorded as `OPENCODE`: `signs` tells one, `calls`
reads an export's calls (imported only when an export is read), `talk` its conversation.
Only the registry (`agents`) imports it; it imports the transcripts' common rooms and
the core."""

from __future__ import annotations

from typing import Any

from ...agent_format import AgentFormat, Shape
from ...model import Transcript
from .signs import EXPECTED, FORMAT, looks_like


def _read(document: Any, name: str) -> Transcript:
    from .calls import read  # noqa: PLC0415 - the reader, when a file of it is read

    return read(document, name)


OPENCODE = AgentFormat(
    name=FORMAT,
    expected=EXPECTED,
    document=Shape(1, looks_like, _read),
)
