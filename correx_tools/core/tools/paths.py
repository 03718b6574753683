"""Workspace-relative paths, checked by their text alone.

A path a tool says it affects must stay inside the workspace. This module
decides what the text of a path can decide without looking at a disk: it must
be relative, non-empty, free of NUL bytes and backslashes, not start with
``~``, and its ``..`` parts may never climb above the root. Whether a symlink
on the way points out is a question about the file system, answered by
`correx_tools.shell.workspace.Workspace`.
"""

from __future__ import annotations

from pathlib import PurePosixPath
from typing import final

from returns.result import Failure, Result, Success

from .errors import CorrexError, error_value
from .json_values import lone_surrogate_at


@final
@error_value
class PathError(CorrexError):
    """A path refused for leaving the workspace (or for being no path at all)."""

    path: str
    reason: str

    def __str__(self) -> str:
        return f"path {self.path[:120]!r}: {self.reason}"


def check_relative_path(path: str | PurePosixPath) -> Result[PurePosixPath, PathError]:
    """The path with ``.`` and ``..`` folded away, if its text keeps it inside the root.

    >>> check_relative_path("src/../README.md").unwrap()
    PurePosixPath('README.md')
    >>> print(check_relative_path("src/../../etc/passwd").failure())
    path 'src/../../etc/passwd': climbs above the workspace root
    """
    text = path if isinstance(path, str) else str(path)
    reason = _text_problem(text)
    if reason is not None:
        return Failure(PathError(path=text, reason=reason))
    parts: list[str] = []
    for part in text.split("/"):
        if part in ("", "."):
            continue
        if part == "..":
            if not parts:
                return Failure(PathError(path=text, reason="climbs above the workspace root"))
            parts.pop()
        else:
            parts.append(part)
    return Success(PurePosixPath(*parts))


def _text_problem(text: str) -> str | None:
    if not text:
        return "is empty"
    if "\x00" in text:
        return "contains a NUL byte"
    surrogate = lone_surrogate_at(text)
    if surrogate is not None:
        return (
            f"holds a lone surrogate at character {surrogate}: "
            "it is not text any file system can name"
        )
    if "\\" in text:
        return "contains a backslash (a separator on Windows)"
    if text.startswith("/"):
        return "is absolute; affected paths are relative to the workspace root"
    if text.startswith("~"):
        return "starts with '~', which a shell would expand to a home directory"
    return None
