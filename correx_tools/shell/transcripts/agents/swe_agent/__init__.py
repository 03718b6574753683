"""SWE-agent's trajectories (``*.traj``): `calls` reads a trajectory's steps, `talk` its
conversation.

Exports the format's one record, `SWE_AGENT`, which `agents.REGISTRY` lists; imports
`agent_format`, `model`, `common`, the stores' strict JSON and the core.
"""

from __future__ import annotations

from ...agent_format import AgentFormat, Shape
from .calls import FORMAT, looks_like, read

SWE_AGENT = AgentFormat(
    name=FORMAT,
    expected="a SWE-agent trajectory: an object with a trajectory list",
    document=Shape(5, looks_like, read),
)
