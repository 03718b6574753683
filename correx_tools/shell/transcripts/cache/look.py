"""What one look at a cache's files did (`Look`), and who is told as it goes (`Watcher`)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import final


@final
@dataclass(slots=True)
class Look:
    """What one look did: the files it found, and for each file it read, what became of it.

    Each list holds ``(file, session)`` pairs, or ``(file, reason)`` for
    ``skipped`` and ``refused``; only files read in this look are in them, but for the
    folders (and files named on their own) that could not be read at all, which each look
    finds again: in ``refused``, and in ``unreadable`` too.
    """

    files: int = 0
    read: int = 0
    new: list[tuple[str, str]] = field(default_factory=list)
    grown: list[tuple[str, str]] = field(default_factory=list)
    rewritten: list[tuple[str, str]] = field(default_factory=list)
    removed: list[tuple[str, str]] = field(default_factory=list)
    skipped: list[tuple[str, str]] = field(default_factory=list)
    refused: list[tuple[str, str]] = field(default_factory=list)
    unreadable: list[tuple[str, str]] = field(default_factory=list)

    @property
    def changed(self) -> bool:
        """Whether the cache's sessions changed."""
        return bool(self.new or self.grown or self.rewritten or self.removed)


class Watcher:
    """Told what a look does as it does it (the command draws a bar); does nothing here."""

    def reading(self, files: int, size: int) -> None:
        """About to read ``files`` files of ``size`` bytes in all."""

    def done(self, size: int) -> None:
        """One file of ``size`` bytes read."""
