"""A run's final patch, as its harness recorded it (SWE-agent's ``info.submission``,
mini-swe-agent's, OpenHands' ``git_patch``): a ``git diff``, read into each file's hunks.

The text is the model's work, so it is read in one pass over its lines, with no regex and
at most `MAX_LINES` lines kept of each file (then ``cut``). A file is named by its path
after ``b/`` (before ``a/`` for one the patch deletes); its hunks are the lines after each
``@@ -l,c +l,c @@``, each ``(op, text)`` as `edits` writes them.

>>> found = patch_files("diff --git a/x.py b/x.py\\n--- a/x.py\\n+++ b/x.py\\n"
...                     "@@ -1,2 +1,2 @@\\n a\\n-b\\n+c\\n")
>>> found["x.py"].hunks
[{'old': 1, 'new': 1, 'lines': [[' ', 'a'], ['-', 'b'], ['+', 'c']]}]
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, final

MAX_LINES = 2_000
"""Lines kept of one file's hunks; past that its diff is cut (and says so)."""
MAX_FILES = 1_000
"""Files read of one patch."""


@final
@dataclass(slots=True)
class PatchedFile:
    """One file a patch changes: its hunks, whether it is new or deleted, and whether its
    lines were cut."""

    path: str
    hunks: list[dict[str, Any]] = field(default_factory=list)
    created: bool = False
    deleted: bool = False
    cut: bool = False
    lines: int = 0


def patch_files(text: str) -> dict[str, PatchedFile]:
    """Each file ``text`` (a ``git diff``) changes, by its path."""
    files: dict[str, PatchedFile] = {}
    current: PatchedFile | None = None
    old = new = ""
    for raw in text.split("\n"):
        line = raw.removesuffix("\r")
        if line.startswith("diff --git "):
            current, old, new = None, "", ""
            continue
        if line.startswith("--- ") and (current is None or not current.hunks):
            old = _path(line[4:])
            continue
        if line.startswith("+++ ") and (current is None or not current.hunks):
            new = _path(line[4:])
            name = new if new != "/dev/null" else old
            if not name or name == "/dev/null" or len(files) >= MAX_FILES:
                current = None
                continue
            current = files.setdefault(name, PatchedFile(name))
            current.created = old == "/dev/null"
            current.deleted = new == "/dev/null"
            continue
        if current is None:
            continue
        if line.startswith("@@"):
            old_at, new_at = _starts(line)
            current.hunks.append({"old": old_at, "new": new_at, "lines": []})
        elif current.hunks and line[:1] in (" ", "-", "+", "\\"):
            current.lines += 1
            if current.lines > MAX_LINES:
                current.cut = True
                continue
            current.hunks[-1]["lines"].append([line[0], line[1:]])
    return files


def _path(named: str) -> str:
    """A path as a diff's ``---``/``+++`` line names it, without its ``a/``/``b/`` and any
    tab-separated time after it."""
    name = named.split("\t", 1)[0].strip()
    if name.startswith('"') and name.endswith('"') and len(name) > 1:
        name = name[1:-1]
    if name.startswith(("a/", "b/")):
        return name[2:]
    return name


def _starts(line: str) -> tuple[int | None, int | None]:
    """The first line of each side a hunk's header names (``@@ -3,7 +3,8 @@``)."""
    parts = line.split(" ")
    found: list[int | None] = []
    for mark in ("-", "+"):
        word = next((part for part in parts[1:3] if part.startswith(mark)), "")
        number = word[1:].split(",", 1)[0]
        found.append(int(number) if number.isdigit() and len(number) < 10 else None)
    return found[0], found[1]
