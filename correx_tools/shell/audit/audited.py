"""What an audit looked at, counted as it reads."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import final


@final
@dataclass(slots=True)
class Audited:
    """What an audit looked at: sessions, events, calls, and the calls of unknown tools."""

    sessions: int = 0
    events: int = 0
    calls: int = 0
    unknown: dict[str, int] = field(default_factory=dict)

    def add(self, calls: int, unknown: Mapping[str, int]) -> None:
        """Count ``calls`` more, ``unknown`` of them by tool (the calls of unknown tools)."""
        self.calls += calls
        for tool, count in unknown.items():
            self.unknown[tool] = self.unknown.get(tool, 0) + count
