"""Goose's sessions, recorded as `GOOSE`: `calls` reads an export's or an older session
file's calls, `talk` their conversation, `database` every session of Goose's own
``sessions.db``.
Only the registry (`agents`) imports it; it imports the transcripts' common rooms and
the core."""

from __future__ import annotations

from ...agent_format import AgentFormat, Database, Home, Shape
from .calls import EXPECTED, FORMAT, looks_like_export, looks_like_legacy, read_export, read_legacy
from .database import read_database

GOOSE = AgentFormat(
    name=FORMAT,
    expected=EXPECTED,
    lines=Shape(4, looks_like_legacy, read_legacy),
    document=Shape(2, looks_like_export, read_export),
    database=Database(frozenset({"sessions", "messages"}), read_database),
    homes=(Home("Goose", 5, lambda places: places.data / "goose" / "sessions"),),
)
