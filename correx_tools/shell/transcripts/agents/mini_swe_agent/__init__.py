"""mini-swe-agent's trajectories (``*.traj.json``), recorded as `MINI_SWE_AGENT`: `signs`
tells one, `calls` reads its actions (imported only when a trajectory is read), `talk` its
conversation.
Only the registry (`agents`) imports it."""

from __future__ import annotations

from ...agent_format import AgentFormat, Later, Shape
from .signs import FORMAT, looks_like

MINI_SWE_AGENT = AgentFormat(
    name=FORMAT,
    expected="a mini-swe-agent trajectory: an object with messages and "
    'trajectory_format "mini-swe-agent-1"',
    document=Shape(6, looks_like, Later(f"{__name__}.calls", "read")),
)
