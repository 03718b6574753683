"""The workspace root, and the check that a tool's affected paths stay inside it.

The text of each path is checked first (`check_relative_path`); then
the path is resolved on disk, following every symlink on the way, and must
still be inside the root's own resolved location. Paths that do not exist yet
(a file about to be written) are resolved as far as they exist.

A check is a snapshot: a symlink swapped in after it can still lead out. An
executor that writes files should open them relative to the root without
following links (``O_NOFOLLOW``, or ``openat2`` with ``RESOLVE_BENEATH`` on
Linux) as a second line of defence; docs/reliability.md says more.
"""

from __future__ import annotations

import os
from collections.abc import Iterable
from pathlib import Path, PurePosixPath
from typing import final

from returns.result import Failure, Result, Success

from ..core.tools.paths import PathError, check_relative_path
from ..core.tools.request import ToolRequest
from ..core.tools.tool import FileAffectingTool


@final
class Workspace:
    """A directory tools may touch; ``check`` says whether a path stays inside it."""

    __slots__ = ("root",)

    def __init__(self, root: str | os.PathLike[str]) -> None:
        resolved = Path(os.path.realpath(root))
        if not resolved.is_dir():
            raise ValueError(f"workspace root {str(root)[:200]!r} is not a directory")
        self.root = resolved

    def __repr__(self) -> str:
        return f"Workspace({str(self.root)!r})"

    def check(self, path: str | PurePosixPath) -> Result[Path, PathError]:
        """The absolute, resolved location of ``path``, or why it is refused."""
        relative = check_relative_path(path)
        if isinstance(relative, Failure):
            return relative
        text = path if isinstance(path, str) else str(path)
        # Resolve the path as written, not the folded one: "link/.." means the
        # parent of wherever link points, which may be outside.
        resolved = Path(os.path.realpath(self.root / text))
        if not resolved.is_relative_to(self.root):
            return Failure(
                PathError(path=text, reason="resolves outside the workspace through a symlink")
            )
        return Success(resolved)

    def check_all(self, paths: Iterable[str | PurePosixPath]) -> Result[frozenset[Path], PathError]:
        """Every path resolved, or the first refusal (in sorted order, so it is stable)."""
        resolved: set[Path] = set()
        for path in sorted(paths, key=str):
            checked = self.check(path)
            if isinstance(checked, Failure):
                return checked
            resolved.add(checked.unwrap())
        return Success(frozenset(resolved))

    def affected_paths(
        self, tool: FileAffectingTool, request: ToolRequest
    ) -> Result[frozenset[Path], PathError]:
        """The paths ``tool`` says ``request`` affects, each checked against this workspace."""
        return self.check_all(tool.affected_paths(request))
