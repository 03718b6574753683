"""What a transcript that cannot be read raises: where in it, and what is wrong.

A format's reader raises `Unreadable` (or `Unrecognised`, for a file that is no
transcript it reads); the import makes it a `TranscriptError`, the value a
caller is given.
"""

from __future__ import annotations

from typing import final

from ...core.tools.errors import CorrexError, error_value


@final
@error_value
class TranscriptError(CorrexError):
    """A transcript that could not be imported: the file, where in it, and what is wrong.

    ``where`` is ``line N`` for a JSON Lines file, a JSON path (``$.history[3].args``)
    for a JSON document, or empty for the file as a whole. Nothing was written.
    """

    source: str
    where: str
    message: str

    def __str__(self) -> str:
        return (
            f"{self.source}: {self.where}: {self.message}"
            if self.where
            else (f"{self.source}: {self.message}")
        )


class Unreadable(Exception):
    """Raised inside a format reader; the reader's caller makes it a `TranscriptError`."""

    def __init__(self, where: str, message: str) -> None:
        super().__init__(message)
        self.where = where
        self.message = message


class Unrecognised(Unreadable):
    """Raised when no reader recognises a file: it is not a transcript this package reads
    (a folder's import skips such a file, where it refuses a transcript that is damaged).

    ``short`` is the message without ``tried``, the formats it was tried as.
    """

    def __init__(self, message: str, tried: str = "") -> None:
        super().__init__("", f"{message}; tried {tried}" if tried else message)
        self.short = message
