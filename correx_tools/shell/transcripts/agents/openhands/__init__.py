"""OpenHands' records, as two formats: its event histories (`OPENHANDS`: `calls` reads a
history's actions and observations, `talk` its conversation) and its completion logs
(`OPENHANDS_COMPLETIONS`: `completions` reads one model call's log).
Only the registry (`agents`) imports it; it imports the transcripts' common rooms, the
OpenAI chat reader (a completion log's messages are a chat list) and the core."""

from __future__ import annotations

from ...agent_format import AgentFormat, Shape
from . import completions
from .calls import FORMAT, events_of, read

OPENHANDS = AgentFormat(
    name=FORMAT,
    expected="an OpenHands history: a list of events, or an object with history",
    document=Shape(6, lambda document: events_of(document) is not None, read),
)
OPENHANDS_COMPLETIONS = AgentFormat(
    name=completions.FORMAT,
    expected="an OpenHands completion log: an object with messages, response and cost",
    document=Shape(6, completions.looks_like, completions.read),
)
