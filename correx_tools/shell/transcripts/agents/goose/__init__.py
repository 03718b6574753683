"""Goose's sessions, recorded as `GOOSE`: `signs` tells one, `calls` reads an export's or an
older session file's calls, `talk` their conversation, `database` every session of Goose's
own ``sessions.db`` (the readers imported only when a session is read).
Only the registry (`agents`) imports it; it imports the transcripts' common rooms and
the core."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ...agent_format import AgentFormat, Database, Home, Shape
from ...model import Transcript
from .signs import EXPECTED, FORMAT, looks_like_export, looks_like_legacy


def _read_export(document: Any, name: str) -> Transcript:
    from .calls import read_export  # noqa: PLC0415 - the reader, when a file of it is read

    return read_export(document, name)


def _read_legacy(records: Any, name: str) -> Transcript:
    from .calls import read_legacy  # noqa: PLC0415 - the reader, when a file of it is read

    return read_legacy(records, name)


def _read_database(path: Path, session: str | None) -> list[Transcript]:
    from .database import read_database  # noqa: PLC0415 - the reader, when a database is read

    return read_database(path, session)


GOOSE = AgentFormat(
    name=FORMAT,
    expected=EXPECTED,
    lines=Shape(4, looks_like_legacy, _read_legacy),
    document=Shape(2, looks_like_export, _read_export),
    database=Database(frozenset({"sessions", "messages"}), _read_database),
    homes=(Home("Goose", 5, lambda places: places.data / "goose" / "sessions"),),
)
