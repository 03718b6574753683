"""OpenHands' event histories, recorded as `OPENHANDS`: `calls` reads a history's actions
and observations, `talk` its conversation.
Only the registry (`agents`) imports it; it imports the transcripts' common rooms and
the core."""

from __future__ import annotations

from ...agent_format import AgentFormat, Shape
from .calls import FORMAT, events_of, read

OPENHANDS = AgentFormat(
    name=FORMAT,
    expected="an OpenHands history: a list of events, or an object with history",
    document=Shape(6, lambda document: events_of(document) is not None, read),
)
