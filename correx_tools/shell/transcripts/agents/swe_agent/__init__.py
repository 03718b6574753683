"""SWE-agent's trajectories (``*.traj``), recorded as `SWE_AGENT`: `signs` tells one, `calls`
reads a trajectory's steps (imported only when a trajectory is read), `talk` its
conversation.
Only the registry (`agents`) imports it."""

from __future__ import annotations

from ...agent_format import AgentFormat, Later, Shape
from .signs import FORMAT, looks_like

SWE_AGENT = AgentFormat(
    name=FORMAT,
    expected="a SWE-agent trajectory: an object with a trajectory list",
    document=Shape(5, looks_like, Later(f"{__name__}.calls", "read")),
)
