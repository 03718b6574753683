"""Which snapshots a replay keeps for time travel."""

from __future__ import annotations

import enum
from dataclasses import dataclass
from typing import final


@final
class RetentionKind(enum.Enum):
    """The three retention policies."""

    ALL = "all"
    EVERY = "every"
    LAST = "last"


@final
@dataclass(frozen=True, slots=True)
class Retention:
    """A retention policy; build one with `all`, `every` or `last`.

    >>> Retention.every(100)
    Retention(kind=<RetentionKind.EVERY: 'every'>, size=100)
    """

    kind: RetentionKind
    size: int = 1

    def __post_init__(self) -> None:
        if type(self.size) is not int or self.size < 1:
            raise ValueError(f"retention size must be an int >= 1, got {self.size!r}")
        if self.kind is RetentionKind.ALL and self.size != 1:
            raise ValueError("Retention.all() takes no size")

    @staticmethod
    def all() -> Retention:
        """Make every state reachable: a full state every 64 events, re-folding the rest."""
        return Retention(RetentionKind.ALL)

    @staticmethod
    def every(k: int) -> Retention:
        """Keep a checkpoint every ``k`` events; ``at`` re-folds at most ``k - 1`` events."""
        return Retention(RetentionKind.EVERY, k)

    @staticmethod
    def last(n: int) -> Retention:
        """Keep only the ``n`` most recent states (the initial one counts while in range)."""
        return Retention(RetentionKind.LAST, n)
