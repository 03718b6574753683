"""OpenAI Codex CLI's rollouts, recorded as `CODEX`: `signs` tells one, `calls` reads a
rollout's calls (imported only when a rollout is read), `talk` its conversation.
Only the registry (`agents`) imports it; it imports the transcripts' common rooms and
the core."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...agent_format import AgentFormat, Home, Shape
from ...model import Transcript
from .signs import EXPECTED, FORMAT, looks_like


def _read(records: Any, name: str) -> Transcript:
    from .calls import read  # noqa: PLC0415 - the reader, when a file of it is read

    return read(records, name)


CODEX = AgentFormat(
    name=FORMAT,
    expected=EXPECTED,
    lines=Shape(1, looks_like, _read),
    homes=(
        Home(
            "Codex CLI",
            2,
            lambda places: (
                Path(places.environ.get("CODEX_HOME") or places.home / ".codex") / "sessions"
            ),
        ),
    ),
)
