"""What two runs did to their files, from the edits each recorded: which files each changed,
the first point after which their files differ, and how a file that ends differently
differs.

A transcript holds a run's edits, not its files, so a file is known by the edits
made to it (`edits.edit_of`): each completed edit that took effect moves the file
to a new *version*, a digest chained over the edits so far (their lines, the
path relative to the run's working directory). Two runs' files are the same
where the same edits were made to them in the same order: an edit undone by a
later one still counts, since the transcript cannot say the text is back.

Walking the two runs side by side (`comparison.side_by_side`), the files
differ after the first row at which some file's versions in the two runs
differ. A file whose last versions differ is shown as a line diff between the
two runs: of the files' text where each run's last edit wrote the file whole,
else of what each run's edits removed (``-``) and added (``+``), in order
(`SCRIPT_LINES` at most a file, then cut).
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from hashlib import blake2b
from typing import Any, final

from ..replay.comparison import Row
from .edits import diff_lines, edit_of

SCRIPT_LINES = 2_000
"""Lines of a file's edits kept for its diff; past that the script is cut (and says so)."""


@final
@dataclass(slots=True)
class EditedFile:
    """One file as one run's edits left it: how many edits, its version (a digest chained
    over them), the call of its last edit, its text where that edit wrote it whole, and
    the lines its edits removed and added."""

    path: str
    edits: int = 0
    version: int = 0
    last: int = -1
    text: str | None = None
    script: list[str] = field(default_factory=list)
    cut: bool = False


@final
class EditedFiles:
    """One run's files, as its calls are read in order (`record` each completed call)."""

    __slots__ = ("changes", "cwd", "files")

    def __init__(self, cwd: str | None) -> None:
        self.cwd = cwd
        self.files: dict[str, EditedFile] = {}
        self.changes: list[tuple[int, str, int]] = []
        """Each edit as it came: the call's position, the file, the version it made."""

    def record(self, position: int, tool_name: str, arguments: Mapping[str, Any]) -> None:
        """The call at ``position`` completed and took effect: if it is an edit, each file
        it changed moves to its next version."""
        edited = edit_of(tool_name, arguments)
        for change in edited or ():
            path = self.relative(str(change["path"]))
            file = self.files.get(path) or self.files.setdefault(path, EditedFile(path))
            lines = [line for hunk in change["hunks"] for line in hunk["lines"]]
            said = json.dumps([path, change["whole"], lines], ensure_ascii=True)
            file.version = _chained(file.version, said)
            file.edits += 1
            file.last = position
            file.text = "".join(text + "\n" for _, text in lines) if change["whole"] else None
            if change["whole"]:
                file.script.clear()
            for op, text in lines:
                if op in "+-" and len(file.script) < SCRIPT_LINES:
                    file.script.append(op + text)
                elif op in "+-":
                    file.cut = True
            self.changes.append((position, path, file.version))

    def relative(self, path: str) -> str:
        """``path`` relative to the run's working directory, where it lies under it."""
        root = (self.cwd or "").rstrip("/")
        if root and path.startswith(root + "/"):
            return path[len(root) + 1 :]
        return path


def _chained(version: int, said: str) -> int:
    digest = blake2b(version.to_bytes(8, "big", signed=True) + said.encode("ascii"), digest_size=8)
    return int.from_bytes(digest.digest(), "big", signed=True)


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

    __slots__ = ("changes_a", "changes_b", "parted", "versions_a", "versions_b")

    def __init__(self, a: EditedFiles, b: EditedFiles) -> None:
        self.changes_a = _by_position(a.changes)
        self.changes_b = _by_position(b.changes)
        self.versions_a: dict[str, int] = {}
        self.versions_b: dict[str, int] = {}
        self.parted: tuple[int, Row] | None = None
        """The first row after which the files differ, once seen."""

    def see(self, number: int, row: Row) -> bool:
        """Take row ``number``; whether the files differ after it (or did already)."""
        if self.parted is not None:
            return True
        touched: list[str] = []
        for position, changes, versions in ((row.a, self.changes_a, self.versions_a),
                                            (row.b, self.changes_b, self.versions_b)):  # fmt: skip
            if position is None or position not in changes:
                continue
            for path, version in changes[position]:
                versions[path] = version
                touched.append(path)
        va, vb = self.versions_a, self.versions_b
        if any(va.get(path, 0) != vb.get(path, 0) for path in touched):
            self.parted = (number, row)
        return self.parted is not None


def _by_position(changes: list[tuple[int, str, int]]) -> dict[int, list[tuple[str, int]]]:
    found: dict[int, list[tuple[str, int]]] = {}
    for position, path, version in changes:
        found.setdefault(position, []).append((path, version))
    return found


def differing_files(a: EditedFiles, b: EditedFiles) -> list[str]:
    """The files whose last versions differ in the two runs (one run's only included)."""
    paths = sorted(a.files.keys() | b.files.keys())
    return [p for p in paths if _version(a, p) != _version(b, p)]


def _version(files: EditedFiles, path: str) -> int:
    found = files.files.get(path)
    return 0 if found is None else found.version


def file_diff(a: EditedFile | None, b: EditedFile | None) -> dict[str, Any]:
    """How a file differs between the runs: ``{"of": "text" | "edits", "hunks", "cut"}``:
    a diff of its text where both runs' last edits wrote it whole (or one run never
    edited it and the other wrote it whole), else of the lines each run's edits removed
    and added."""
    texts = (None if a is None else a.text, None if b is None else b.text)
    whole = all(t is not None or f is None for t, f in zip(texts, (a, b), strict=True))
    if whole:
        hunks, cut = diff_lines(texts[0] or "", texts[1] or "")
        return {"of": "text", "hunks": hunks, "cut": cut}
    scripts = ["".join(line + "\n" for line in f.script) if f else "" for f in (a, b)]
    hunks, cut = diff_lines(scripts[0], scripts[1])
    cut = cut or any(f is not None and f.cut for f in (a, b))
    return {"of": "edits", "hunks": hunks, "cut": cut}
