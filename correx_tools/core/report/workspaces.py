"""What two runs did to their files, from the edits each recorded: which files each changed,
the first point after which their files differ, and how a file that ends differently
differs.

A transcript holds a run's edits, not its files, so a file is known by the changes
made to it (`meaning.Meanings` reads every agent's: an editor's edit, a write, a
SWE-agent windowed edit of the file it has open, a ``sed -i`` or an ``rm`` of a shell
command): each completed change that took effect moves the file to a new *version*, a
hash chained over the changes so far (what each said: its lines, or, where it does not
say them, the command). Versions are compared within one process only (both runs are
read in it), so Python's own hash serves. Two runs' files are the same where the same
changes were made to them in the same order: an edit undone by a later one still counts,
since the transcript cannot say the text is back. A file is named by its path relative to the
run's workspace root (`settle`): two spellings of one path are one file.

Walking the two runs side by side (`comparison.side_by_side`), the files
differ after the first row at which some file's versions in the two runs
differ. What each run's changes left of each file is `final_changes`' answer.
"""

from __future__ import annotations

import json
from array import array
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import final

from ..replay.comparison import Row
from ..replay.kinds import Change, rooted

SCRIPT_LINES = 2_000
"""Lines of a file's edits kept for its diff; past that the script is cut (and says so)."""


@final
@dataclass(slots=True)
class EditedFile:
    """One file as one run's changes left it: how many changes, its version (a hash
    chained over them), the call of its last change, its text where that change wrote it
    whole, the lines its changes removed and added; ``unknown`` when a change since its
    last whole writing did not say its lines, ``created`` when the run wrote it whole
    first, ``deleted`` when its last change removed it."""

    path: str
    edits: int = 0
    version: int = 0
    last: int = -1
    text: str | None = None
    script: list[str] = field(default_factory=list)
    cut: bool = False
    unknown: bool = False
    created: bool = False
    deleted: bool = False
    by: str = ""
    """What changed it last where that change did not say its lines (the command)."""


@final
class EditedFiles:
    """One run's files, as its calls are read in order (`record` each completed call that
    changed files), named relative to the run's workspace once `settle`d."""

    __slots__ = ("_names", "cwd", "files", "names", "paths", "positions", "versions")

    def __init__(self, cwd: str | None = None) -> None:
        self.cwd = cwd
        self.files: dict[str, EditedFile] = {}
        # Each change as it came, in columns: the call's position, its file (a number into
        # ``names``), the version it made.
        self.positions: array[int] = array("q")
        self.paths: array[int] = array("i")
        self.versions: array[int] = array("q")
        self.names: list[str] = []
        self._names: dict[str, int] = {}

    def record(self, position: int, changes: Sequence[Change], said: str = "") -> None:
        """The call at ``position`` completed and took effect, changing these files
        (``said``: the call's own words, for a change that does not say its lines: what
        made it, and what its version is chained over). A file is named as the call wrote it until
        the run's workspace is known (`settle`), unless its working directory is."""
        for change in changes:
            path = change.path and rooted(change.path, self.cwd)
            self._change(position, change, said, path or "(the file open then)")

    def settle(self, root: str | None) -> None:
        """Name every file relative to ``root`` (the run's workspace, found once every call
        is read): two names of one file become one (their changes taken in the order
        they came); nothing to do where the working directory was known."""
        if self.cwd is not None or root is None:
            return
        self.cwd = root
        self.names = [rooted(name, root) for name in self.names]
        merged: dict[str, EditedFile] = {}
        for file in sorted(self.files.values(), key=lambda found: found.last):
            file.path = rooted(file.path, root)
            earlier = merged.get(file.path)
            merged[file.path] = file if earlier is None else _merged(earlier, file)
        self.files = merged

    def _change(self, position: int, change: Change, said: str, path: str) -> None:
        file = self.files.get(path) or self.files.setdefault(path, EditedFile(path))
        lines = change.lines
        # What the change said: its lines, or (where it says none) what made it.
        told = json.dumps([change.at, lines]) if lines is not None else said
        file.version = hash((file.version, change.how, told))
        file.created = file.created or (file.edits == 0 and change.how == "write")
        file.edits += 1
        file.last = position
        file.deleted = change.how == "delete"
        whole = change.how == "write" and lines is not None
        file.text = "".join(text + "\n" for _, text in lines or ()) if whole else None
        if change.how == "write" or file.deleted:
            file.script.clear()
            file.unknown = lines is None and not file.deleted
        elif lines is None:
            file.unknown = True
        if lines is None:
            file.by = said
        for op, text in lines or ():
            if op in "+-" and len(file.script) < SCRIPT_LINES:
                file.script.append(op + text)
            elif op in "+-":
                file.cut = True
        number = self._names.setdefault(path, len(self._names))
        if number == len(self.names):
            self.names.append(path)
        self.positions.append(position)
        self.paths.append(number)
        self.versions.append(file.version)

    def relative(self, path: str) -> str:
        """``path`` relative to the run's working directory, where it lies under it."""
        return rooted(path, self.cwd)


def _merged(earlier: EditedFile, later: EditedFile) -> EditedFile:
    """One file a run named two ways: ``later`` (the name it changed last) after
    ``earlier``, as if every change of the one came before every change of the other."""
    later.edits += earlier.edits
    later.version = hash((earlier.version, later.version))
    later.created = earlier.created
    if later.text is None and not later.deleted:
        later.script[:0] = earlier.script[: SCRIPT_LINES - len(later.script)]
        later.unknown = later.unknown or earlier.unknown
    later.cut = later.cut or earlier.cut
    return later


_NONE: list[str] = []
_PAST = 1 << 62
"""A position past every call (a run with no change left)."""


def files_part(rows: Iterable[Row], a: EditedFiles, b: EditedFiles) -> tuple[int, Row] | None:
    """The first row (its number, and the row) after which some file's versions in the two
    runs differ; ``None`` when they never do."""
    walk = FilesWalk(a, b)
    for number, row in enumerate(rows):
        if walk.see(number, row):
            break
    return walk.parted


@final
class FilesWalk:
    """Two runs' files followed along their rows, one row at a time (`files_part`), for
    a caller that walks the rows for more than this."""

    __slots__ = ("at", "next", "parted", "runs", "versions_a", "versions_b")

    def __init__(self, a: EditedFiles, b: EditedFiles) -> None:
        self.runs = (a, b)
        self.at = [0, 0]  # the next change of each run: rows come in each run's order
        self.next = [run.positions[0] if run.positions else _PAST for run in self.runs]
        self.versions_a: dict[str, int] = {}
        self.versions_b: dict[str, int] = {}
        self.parted: tuple[int, Row] | None = None
        """The first row after which the files differ, once seen."""

    def see(self, number: int, row: Row) -> bool:
        """Take row ``number``; whether the files differ after it (or did already)."""
        if self.parted is not None:
            return True
        a, b = row.a, row.b
        if (a is None or a < self.next[0]) and (b is None or b < self.next[1]):
            return False  # neither call changed a file: most rows
        touched = self._take(0, a, self.versions_a) + self._take(1, b, self.versions_b)
        va, vb = self.versions_a, self.versions_b
        if touched and any(va.get(path, 0) != vb.get(path, 0) for path in touched):
            self.parted = (number, row)
        return self.parted is not None

    def _take(self, side: int, position: int | None, versions: dict[str, int]) -> list[str]:
        """The files one run's call at ``position`` changed, their versions taken."""
        run, at = self.runs[side], self.at[side]
        positions = run.positions
        if position is None or at >= len(positions) or positions[at] > position:
            return _NONE  # most calls change no file
        touched = []
        while at < len(positions) and positions[at] <= position:
            if positions[at] == position:
                path = run.names[run.paths[at]]
                versions[path] = run.versions[at]
                touched.append(path)
            at += 1
        self.at[side] = at
        self.next[side] = positions[at] if at < len(positions) else _PAST
        return touched
