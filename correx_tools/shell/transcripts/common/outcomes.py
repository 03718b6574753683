"""How a call ended, built the same way for every format: the one outcome rule.

* a command that ran and exited non-zero, where the format records the exit
  code as such, is **completed** with that exit code;
* a call refused before it ran (denied, arguments that do not parse, a tool
  that does not exist) is **rejected**, and never started;
* a call that ran and errored, or was interrupted after it began, **failed**;
* a call with no outcome by the end of the file stays in flight (no `End`).

Each reader decides which of these its records say; the functions here build the
`End` and read the times and exit codes the formats write. What a transcript does
not record is not made up: a completed call whose transcript states no exit code
has none (its receipt says so, `staging`), and an edit the tool answered did not
take effect is marked so (`not_applied`), in the tool's own words.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any

from ..errors import Unreadable
from ..model import End, Ending, Position
from .long_text import head_match

if TYPE_CHECKING:
    from re2 import _Regexp

EDIT_APPLIED = "edit_applied"
"""The receipt's metadata key that is ``"false"`` for an edit that did not take effect."""
EDIT_NOTE = "edit_note"
"""The receipt's metadata key that holds what the tool said of such an edit."""
NOTE_CHARS = 300
"""The most characters of the tool's words an ``edit_note`` keeps."""
_SCANNED = 4 * NOTE_CHARS  # a note is read from the start of the text only: bounded work


def completed(
    at: datetime,
    position: Position,
    output: Any,
    metadata: dict[str, str],
    exit_code: int | None = None,
    *,
    recorded: bool = True,
) -> End:
    """A call that ran to its end (whatever its exit code; ``None``: none recorded).
    ``recorded`` is false when the transcript records no time for the end."""
    return End(
        kind=Ending.COMPLETED,
        at=at,
        position=position,
        output=output,
        exit_code=exit_code,
        metadata=metadata,
        recorded=recorded,
    )


def failed(
    at: datetime,
    position: Position,
    reason: str,
    metadata: dict[str, str],
    *,
    recorded: bool = True,
) -> End:
    """A call that ran and errored, or was stopped after it began."""
    reason = reason or "the tool reported an error"
    return End(kind=Ending.FAILED, at=at, position=position, reason=reason, metadata=metadata,
               recorded=recorded)  # fmt: skip


def rejected(
    at: datetime,
    position: Position,
    reason: str,
    metadata: dict[str, str],
    *,
    recorded: bool = True,
) -> End:
    """A call refused before it ran."""
    reason = reason or "rejected"
    return End(kind=Ending.REJECTED, at=at, position=position, reason=reason, metadata=metadata,
               recorded=recorded)  # fmt: skip


def not_applied(metadata: dict[str, str], output: str) -> dict[str, str]:
    """``metadata`` with the marks of an edit that did not take effect: ``edit_applied``
    ``"false"`` and ``edit_note``, the first line of the tool's ``output`` (`first_line`)."""
    return {**metadata, EDIT_APPLIED: "false", EDIT_NOTE: first_line(output)}


def first_line(text: str) -> str:
    """The first line of ``text`` that says something, at most `NOTE_CHARS` characters
    (cut with ``…``). A first line that is only a label (``ERROR:``) takes the next line
    after it, as the tool meant them read: ``ERROR: No replacement was performed, …``.

    >>> first_line("ERROR:\\nNo replacement was performed, old_str `x` did not appear")
    'ERROR: No replacement was performed, old_str `x` did not appear'
    """
    lines = [line.strip() for line in text[:_SCANNED].splitlines() if line.strip()]
    if not lines:
        return ""
    line = lines[0]
    if line.endswith(":") and len(line) <= 20 and len(lines) > 1:
        line = f"{line} {lines[1]}"
    return line if len(line) <= NOTE_CHARS else line[: NOTE_CHARS - 1] + "…"


def exit_code_in(text: str, pattern: _Regexp[str]) -> int | None:
    """The exit code ``pattern`` (one group of digits, matched at the text's start) finds
    in ``text``, if any."""
    found = head_match(pattern, text)
    return None if found is None else int(found.group(1))


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
