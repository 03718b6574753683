"""Which tier and capabilities an imported call gets: no transcript format records them.

A `Tiering` is a function of the tool's name and the call's arguments. The
default one (`table_tiering`) reads the package's one capability table, the
audit's too (`core.tools.capability_table`): a tool's row, in the format's own
section first, gives its capabilities (only reading, where its arguments say
so) and they its tier (`tier_of`: elevated for a shell, another process or the
network, confirm for a write, auto otherwise); a tool the table does not know
is ``CONFIRM`` with no capability (a guess on the careful side).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, final

from ....core.tools.capability import ToolCapability
from ....core.tools.capability_table import builtin_table, tier_of
from ....core.tools.tier import Tier


@final
@dataclass(frozen=True, slots=True)
class Assignment:
    """The tier of a call and what its tool can do."""

    tier: Tier
    capabilities: frozenset[ToolCapability] = frozenset()


Tiering = Callable[[str, Mapping[str, Any]], Assignment]
"""``tiering(tool_name, arguments)``: the tier and capabilities of one imported call."""

_UNKNOWN = Assignment(Tier.CONFIRM)


@functools.cache
def table_tiering(format: str | None) -> Tiering:
    """The tiering the capability table gives the calls of a ``format`` transcript (see the
    module docstring; ``None``: by the shared rows alone).

    >>> tiering = table_tiering("claude-code")
    >>> tiering("Read", {"file_path": "a.py"}).tier
    <Tier.AUTO: 'auto'>
    >>> tiering("str_replace_editor", {"command": "create", "path": "a.py"}).tier
    <Tier.CONFIRM: 'confirm'>
    >>> tiering("deploy_to_prod", {}).tier
    <Tier.CONFIRM: 'confirm'>
    >>> tiering("developer__shell", {"command": "ls"}).tier
    <Tier.ELEVATED: 'elevated'>
    """
    table = builtin_table()

    def tiering(tool_name: str, arguments: Mapping[str, Any]) -> Assignment:
        entry = table.entry(format, tool_name)
        if entry is None:
            return _UNKNOWN
        return _assigned(entry.capabilities_for(arguments))

    return tiering


@functools.cache
def _assigned(capabilities: frozenset[ToolCapability]) -> Assignment:
    """One assignment for each set of capabilities (a table gives few sets)."""
    return Assignment(tier_of(capabilities), capabilities)
