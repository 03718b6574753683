"""What two runs did to their files, as the comparison's document tells it: the files each
changed, where they first differ, and what each left of each file, side by side
(`final_changes`), masked as the rest of the document is."""

from __future__ import annotations

from typing import Any, Protocol

from ...core.report.final_changes import (
    FinalChange,
    compare_changes,
    final_changes,
    shown,
    text_diff,
)
from ...core.report.workspaces import EditedFiles

FILE_CHANGES = 20
"""Files whose final changes a document shows side by side (those that differ first)."""


class Masking(Protocol):
    """How a document shows what a run wrote: each string, and each JSON value."""

    def text(self, text: str) -> str: ...

    def value(self, value: Any) -> Any: ...


def workspace_document(
    files: tuple[EditedFiles, EditedFiles],
    first: dict[str, Any] | None,
    told: Masking,
    patches: tuple[str | None, str | None],
) -> dict[str, Any]:
    """The two runs' files (``first``: where they first differ, or ``None``): each one's
    final changes, and each file's final change in both, side by side, those that differ
    first (`FILE_CHANGES` at most), with the verdict on each."""
    finals = [final_changes(files[0], patches[0]), final_changes(files[1], patches[1])]
    verdicts = compare_changes(finals[0], finals[1])

    def listed(changes: dict[str, FinalChange]) -> list[dict[str, Any]]:
        return [{"path": told.text(path), "edits": change.edits, "change": change.of}
                for path, change in changes.items()]  # fmt: skip

    # The files that differ first, then those not known, then those alike.
    order = sorted(verdicts, key=lambda v: (v.same is not False, v.same is not None, v.path))
    changes = []
    for verdict in order[:FILE_CHANGES]:
        diff = text_diff(verdict.a, verdict.b) if verdict.same is False else None
        changes.append({
            "path": told.text(verdict.path),
            "same": verdict.same,
            "a": _masked(shown(verdict.a), told),
            "b": _masked(shown(verdict.b), told),
            "diff": _masked(diff, told),
        })  # fmt: skip
    return {
        "a_files": listed(finals[0]),
        "b_files": listed(finals[1]),
        "patches": {"a": patches[0] is not None, "b": patches[1] is not None},
        "first_difference": first,
        "differing": [told.text(v.path) for v in verdicts if v.same is False],
        "unknown": [told.text(v.path) for v in verdicts if v.same is None],
        "alike": [told.text(v.path) for v in verdicts if v.same is True],
        "changes": changes,
    }


def _masked(said: dict[str, Any] | None, told: Masking) -> dict[str, Any] | None:
    if said is None:
        return None
    by = said.get("by")
    return {**said, "hunks": told.value(said["hunks"]), "by": None if by is None else told.text(by)}
