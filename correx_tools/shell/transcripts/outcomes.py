"""How a call ended, built the same way for every format: the one outcome rule.

* a command that ran and exited non-zero, where the format records the exit
  code as such, is **completed** with that exit code;
* a call refused before it ran (denied, arguments that do not parse, a tool
  that does not exist) is **rejected**, and never started;
* a call that ran and errored, or was interrupted after it began, **failed**;
* a call with no outcome by the end of the file stays in flight (no `End`).

Each reader decides which of these its records say; the functions here build the
`End` and read the times and exit codes the formats write.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import Any

from .calls import End, Ending, Position, Unreadable


def completed(
    at: datetime,
    position: Position,
    output: Any,
    metadata: dict[str, str],
    exit_code: int = 0,
) -> End:
    """A call that ran to its end (whatever its exit code)."""
    return End(
        kind=Ending.COMPLETED,
        at=at,
        position=position,
        output=output,
        exit_code=exit_code,
        metadata=metadata,
    )


def failed(at: datetime, position: Position, reason: str, metadata: dict[str, str]) -> End:
    """A call that ran and errored, or was stopped after it began."""
    reason = reason or "the tool reported an error"
    return End(kind=Ending.FAILED, at=at, position=position, reason=reason, metadata=metadata)


def rejected(at: datetime, position: Position, reason: str, metadata: dict[str, str]) -> End:
    """A call refused before it ran."""
    reason = reason or "rejected"
    return End(kind=Ending.REJECTED, at=at, position=position, reason=reason, metadata=metadata)


def exit_code_in(text: str, pattern: re.Pattern[str]) -> int | None:
    """The exit code ``pattern`` (one group of digits) finds in ``text``, if any."""
    found = pattern.search(text)
    return None if found is None else int(found[1])


def epoch_time(value: object, where: str, *, milliseconds: bool) -> datetime:
    """A time written as seconds (or milliseconds) since the epoch, in UTC."""
    if not isinstance(value, (int, float)) or isinstance(value, bool):
        raise Unreadable(where, f"a time must be a number, not {type(value).__name__}")
    seconds = value / 1000 if milliseconds else value
    try:
        return datetime.fromtimestamp(seconds, UTC)
    except (OverflowError, OSError, ValueError):
        raise Unreadable(where, f"{value!r} is not a time") from None


def string_metadata(values: dict[str, Any]) -> dict[str, str]:
    """The entries that are set, as strings (a receipt's metadata holds strings only)."""
    return {key: str(value) for key, value in values.items() if value is not None}
