"""A file of tool definitions named on the command line, read into specs."""

from __future__ import annotations

from returns.result import Failure

from ....core.tools.capability import ToolCapability
from ....core.tools.definitions import tool_definitions
from ....core.tools.spec import ToolSpec
from ....core.tools.tier import Tier
from ..errors import CliError
from ..sources.stores import read_json


def read_tools(
    argument: str, *, tier: Tier = Tier.AUTO, capabilities: frozenset[ToolCapability] = frozenset()
) -> tuple[ToolSpec, ...]:
    """The tools of a definitions file, or a one-line error naming the file and JSON path."""
    specs = tool_definitions(
        read_json(argument, "tool definitions"), tier=tier, capabilities=capabilities
    )
    if isinstance(specs, Failure):
        raise CliError(f"{argument}: {specs.failure()}")
    return specs.unwrap()
