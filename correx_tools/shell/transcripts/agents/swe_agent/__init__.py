"""SWE-agent's trajectories (``*.traj``), recorded as `SWE_AGENT`: `calls` reads a
trajectory's steps, `talk` its conversation.
Only the registry (`agents`) imports it; it imports the transcripts' common rooms and
the core."""

from __future__ import annotations

from ...agent_format import AgentFormat, Shape
from .calls import FORMAT, looks_like, read

SWE_AGENT = AgentFormat(
    name=FORMAT,
    expected="a SWE-agent trajectory: an object with a trajectory list",
    document=Shape(5, looks_like, read),
)
