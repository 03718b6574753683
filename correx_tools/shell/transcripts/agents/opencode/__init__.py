"""OpenCode's exports (``opencode export``): `calls` reads an export's calls, `talk` its
conversation.

Exports the format's one record, `OPENCODE`, which `agents.REGISTRY` lists; imports
`agent_format`, `model`, `common` and the core.
"""

from __future__ import annotations

from ...agent_format import AgentFormat, Shape
from .calls import EXPECTED, FORMAT, looks_like, read

OPENCODE = AgentFormat(
    name=FORMAT,
    expected=EXPECTED,
    document=Shape(1, looks_like, read),
)
