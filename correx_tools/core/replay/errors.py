"""Why a replay stopped.

Error hierarchy (all values, never raised):

    ReplayError                 the fold stopped; ``cause`` says why
    ├── cause: TransitionError  the projection refused an event (strict mode)
    ├── cause: SequenceError    a gap, a stale or rewritten sequence, another session
    └── cause: EventDecodeError a stored line or row could not be read
"""

from __future__ import annotations

import enum
from typing import TypeAlias, final

from ..tools.errors import CorrexError, error_value


@final
class SequenceErrorKind(enum.Enum):
    """How a stream's numbering went wrong."""

    GAP = "gap"
    STALE = "stale or rewritten sequence"
    SESSION_MISMATCH = "event of another session"


@final
@error_value
class SequenceError(CorrexError):
    """An event that does not continue the stream: ``expected`` is the sequence due."""

    kind: SequenceErrorKind
    expected: int
    got: int
    message: str


@final
@error_value
class EventDecodeError(CorrexError):
    """A stored event that could not be decoded: where it is and what is wrong.

    ``source`` names the file, table or URL; ``line`` is the 1-based line of a
    log file (``None`` for a database row).
    """

    source: str
    line: int | None
    message: str

    def __str__(self) -> str:
        where = self.source if self.line is None else f"{self.source}:{self.line}"
        return f"{where}: {self.message}"


ReplayCause: TypeAlias = object
"""What stopped a replay: a `TransitionError`, `SequenceError`,
`EventDecodeError`, or the error value of a custom projection."""


@final
@error_value
class ReplayError(CorrexError):
    """A replay that could not finish: the sequence it stopped at and why.

    For an undecodable event ``sequence`` is the one it should have held (the
    last good sequence + 1).
    """

    sequence: int
    cause: ReplayCause
    message: str
