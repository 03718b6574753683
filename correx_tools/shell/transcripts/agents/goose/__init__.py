"""Goose's sessions, recorded as `GOOSE`: `signs` tells one, `calls` reads an export's or an
older session file's calls, `talk` their conversation, `database` every session of Goose's
own ``sessions.db`` (the readers imported only when a session is read).
Only the registry (`agents`) imports it."""

from __future__ import annotations

from ...agent_format import AgentFormat, Database, Home, Later, Shape
from .signs import EXPECTED, FORMAT, looks_like_export, looks_like_legacy

GOOSE = AgentFormat(
    name=FORMAT,
    expected=EXPECTED,
    lines=Shape(4, looks_like_legacy, Later(f"{__name__}.calls", "read_legacy")),
    document=Shape(2, looks_like_export, Later(f"{__name__}.calls", "read_export")),
    database=Database(
        frozenset({"sessions", "messages"}), Later(f"{__name__}.database", "read_database")
    ),
    homes=(Home("Goose", 5, lambda places: places.data / "goose" / "sessions"),),
)
