"""OpenHands' records, as two formats: its event histories (`OPENHANDS`: `signs` tells one,
`calls` reads a history's actions and observations, `talk` its conversation) and its
completion logs (`OPENHANDS_COMPLETIONS`: `completions` reads one model call's log); the
readers are imported only when a file of them is read.
Only the registry (`agents`) imports it; `completions` imports the OpenAI chat reader too
(a completion log's messages are a chat list)."""

from __future__ import annotations

from ...agent_format import AgentFormat, Later, Shape
from .signs import COMPLETION_FORMAT, FORMAT, looks_like, looks_like_completion

OPENHANDS = AgentFormat(
    name=FORMAT,
    expected="an OpenHands history: a list of events, or an object with history",
    document=Shape(6, looks_like, Later(f"{__name__}.calls", "read")),
)
OPENHANDS_COMPLETIONS = AgentFormat(
    name=COMPLETION_FORMAT,
    expected="an OpenHands completion log: an object with messages, response and cost",
    document=Shape(6, looks_like_completion, Later(f"{__name__}.completions", "read")),
)
