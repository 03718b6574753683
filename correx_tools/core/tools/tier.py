"""The approval tier a tool declares (a stand-in for the approvals module)."""

from __future__ import annotations

import enum
from typing import final


@final
class Tier(enum.Enum):
    """How much approval a tool needs before it runs, ordered from least to most.

    >>> Tier.AUTO < Tier.CONFIRM < Tier.ELEVATED
    True
    >>> max(Tier.CONFIRM, Tier.AUTO)
    <Tier.CONFIRM: 'confirm'>
    """

    AUTO = "auto"
    CONFIRM = "confirm"
    ELEVATED = "elevated"

    @property
    def rank(self) -> int:
        """The position of this tier in the order, from 0."""
        return _RANK[self]

    def __lt__(self, other: object) -> bool:
        if not isinstance(other, Tier):
            return NotImplemented
        return self.rank < other.rank

    def __le__(self, other: object) -> bool:
        if not isinstance(other, Tier):
            return NotImplemented
        return self.rank <= other.rank

    def __gt__(self, other: object) -> bool:
        if not isinstance(other, Tier):
            return NotImplemented
        return self.rank > other.rank

    def __ge__(self, other: object) -> bool:
        if not isinstance(other, Tier):
            return NotImplemented
        return self.rank >= other.rank


_RANK = {tier: rank for rank, tier in enumerate(Tier)}
