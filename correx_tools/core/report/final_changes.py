"""What each of two runs left of each file it changed, side by side, and whether the two are
the same change, different, or not known.

A run's *final change* of a file is, in order of trust:

* the file's part of the run's final patch, where its harness recorded one
  (`patches`: SWE-agent's ``submission``, OpenHands' ``git_patch``): exact. A patch
  covers the run's workspace, so a file inside it that the run's calls changed and the
  patch does not name ends unchanged (a scratch file, or an edit undone); a file outside
  it (``../x``, ``/tmp/x``) is known by the calls alone;
* else the run's own changes (`workspaces`): the file's text where the last change wrote
  it whole; else the lines its edits removed and added, in order; ``deleted`` where the
  last change removed it; *unknown* where a change did not say its lines (``sed -i``,
  an editor's undo) and nothing wrote the file whole after it.

A file the run wrote whole and then removed is scratch: no final change. Two runs'
changes of one file are compared by what they removed and added (trailing whitespace
aside): the same lines in the same order are the same change, however each run made
it; a file one run changed and the other did not differs; where either side is
unknown, so is the answer.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Literal, NamedTuple, TypeAlias, final

from .edits import diff_lines
from .patches import PatchedFile, patch_files
from .workspaces import EditedFile, EditedFiles

Of: TypeAlias = Literal["patch", "text", "edits", "deleted", "unknown"]
SHOWN_LINES = 200
"""Lines of one side's change a document shows (then ``cut``)."""


@final
class FinalChange(NamedTuple):
    """What one run left of one file: where that is known from (``of``), its hunks (as
    `edits` writes them), whether they were cut, how many of the run's calls changed it,
    and what the change is compared by (``None``: not known)."""

    path: str
    of: Of
    hunks: list[dict[str, Any]]
    cut: bool
    edits: int
    said: tuple[tuple[str, str], ...] | None
    by: str = ""


def final_changes(files: EditedFiles, patch: str | None) -> dict[str, FinalChange]:
    """Each file the run changed, as it left it (see the module's docstring), by path."""
    found: dict[str, FinalChange] = {}
    patched = patch_files(patch) if patch is not None else None
    for path, file in files.files.items():
        if file.created and file.deleted:
            continue  # scratch: written, then removed
        if patched is not None and _inside(path):
            continue  # the patch says what became of it
        found[path] = _from_edits(file)
    for path, patched_file in (patched or {}).items():
        edited = files.files.get(path)
        found[path] = _from_patch(patched_file, 0 if edited is None else edited.edits)
    return dict(sorted(found.items()))


def _inside(path: str) -> bool:
    return not path.startswith(("/", "../")) and path != ".."


def _from_patch(file: PatchedFile, edits: int) -> FinalChange:
    said = tuple((op, text.rstrip()) for h in file.hunks for op, text in h["lines"] if op in "+-")
    if file.deleted:
        return FinalChange(file.path, "deleted", [], False, edits, (("deleted", ""), *said))
    return FinalChange(file.path, "patch", file.hunks, file.cut, edits, said)


def _from_edits(file: EditedFile) -> FinalChange:
    if file.deleted:
        return FinalChange(file.path, "deleted", [], False, file.edits, (("deleted", ""),))
    if file.unknown:
        return FinalChange(file.path, "unknown", [], False, file.edits, None, file.by)
    if file.text is not None:
        lines = file.text.split("\n")[:-1]
        hunk = {"old": None, "new": 1, "lines": [["+", line] for line in lines[:SHOWN_LINES]]}
        said = tuple(("+", line.rstrip()) for line in lines)
        return FinalChange(file.path, "text", [hunk], len(lines) > SHOWN_LINES or file.cut,
                           file.edits, said)  # fmt: skip
    script = file.script
    hunk = {"old": None, "new": None, "lines": [[line[0], line[1:]] for line in script]}
    said = tuple((line[0], line[1:].rstrip()) for line in script)
    return FinalChange(file.path, "edits", [hunk], file.cut, file.edits, said)


@final
class Compared(NamedTuple):
    """One file two runs changed (either or both): each one's final change (``None``: it
    left the file alone) and whether they are the same (``None``: not known)."""

    path: str
    a: FinalChange | None
    b: FinalChange | None
    same: bool | None


def compare_changes(a: Mapping[str, FinalChange], b: Mapping[str, FinalChange]) -> list[Compared]:
    """Every file either run changed, by path, with the verdict on it."""
    found = []
    for path in sorted(a.keys() | b.keys()):
        left, right = a.get(path), b.get(path)
        said = [() if change is None else change.said for change in (left, right)]
        same = None if None in said else said[0] == said[1]
        found.append(Compared(path, left, right, same))
    return found


def shown(change: FinalChange | None) -> dict[str, Any] | None:
    """A final change as a document shows it (``None``: the run left the file alone)."""
    if change is None:
        return None
    return {"of": change.of, "edits": change.edits, "hunks": change.hunks, "cut": change.cut,
            "by": change.by or None}  # fmt: skip


def text_diff(a: FinalChange | None, b: FinalChange | None) -> dict[str, Any] | None:
    """Where both runs wrote a file whole, a line diff of the two texts; ``None``
    otherwise, or where it would show nothing."""
    if a is None or b is None or a.of != "text" or b.of != "text":
        return None
    texts = ["".join(line + "\n" for _, line in change.said or ()) for change in (a, b)]
    hunks, cut = diff_lines(texts[0], texts[1])
    return {"of": "text", "hunks": hunks, "cut": cut} if hunks else None
