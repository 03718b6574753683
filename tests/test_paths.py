"""Affected paths must stay inside the workspace root, by their text and on disk."""

from __future__ import annotations

import os
import random
from pathlib import Path, PurePosixPath

import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Failure, Success

from correx_tools import (
    FileAffectingTool,
    PathError,
    Tier,
    ToolCapability,
    ToolRequest,
    Workspace,
    check_relative_path,
)


@pytest.fixture
def layout(tmp_path: Path) -> Path:
    """``ws/`` with files, inside and outside links; ``ws-sibling/`` and ``outside/`` next to it.

    The sibling's name starts with the root's: a string-prefix check would let it in.
    """
    root = tmp_path / "ws"
    (root / "sub" / "deeper").mkdir(parents=True)
    (root / "a.txt").write_text("a")
    (root / "sub" / "b.txt").write_text("b")
    (tmp_path / "ws-sibling").mkdir()
    (tmp_path / "ws-sibling" / "secret").write_text("s")
    (tmp_path / "outside").mkdir()
    (root / "link_out").symlink_to(tmp_path / "outside")
    (root / "link_sibling").symlink_to(Path("..") / "ws-sibling")
    (root / "sub" / "link_abs").symlink_to("/etc")
    (root / "chain").symlink_to(Path("sub") / "hop")
    (root / "sub" / "hop").symlink_to(Path("..") / "link_out")
    (root / "dangling_out").symlink_to(tmp_path / "outside" / "not-yet")
    (root / "link_in").symlink_to(Path("sub") / "deeper")
    (root / "up").symlink_to("..")
    return root


CLASSIC_VECTORS = [
    ("../x", "climbs above"),
    ("/etc/passwd", "absolute"),
    ("sub/../../x", "climbs above"),
    ("../ws-sibling/secret", "climbs above"),
    ("link_sibling/secret", "symlink"),
    ("link_out/x", "symlink"),
    ("link_out", "symlink"),
    ("a\x00b", "NUL"),
    ("", "empty"),
    ("..", "climbs above"),
    ("..\\x", "backslash"),
    ("~/x", "'~'"),
    ("//etc/passwd", "absolute"),
    ("sub/link_abs/passwd", "symlink"),
    ("chain/x", "symlink"),
    ("dangling_out", "symlink"),
    ("up/ws-sibling/secret", "symlink"),
    ("link_out/../a.txt", "symlink"),  # by its text a.txt; on disk, next to the root
    ("./sub/./../..", "climbs above"),
    ("\ud800/x", "lone surrogate"),
    ("sub/\udfff", "lone surrogate"),
]
INSIDE = ["a.txt", "sub/b.txt", "sub/../a.txt", "./sub", ".", "new/dir/file.txt", "a..b",
          "link_in/x.txt", "link_in/../b.txt", "...", "ünïcødé/файл", "up/ws/a.txt"]  # fmt: skip


@pytest.mark.parametrize(("path", "words"), CLASSIC_VECTORS)
def test_the_classic_vectors_are_refused_naming_why(layout: Path, path: str, words: str) -> None:
    error = Workspace(layout).check(path).failure()
    assert isinstance(error, PathError)
    assert error.path == path
    assert words in error.reason
    assert repr(path[:20])[:-1] in str(error)


@pytest.mark.parametrize("path", INSIDE)
def test_inside_paths_are_accepted_and_resolved(layout: Path, path: str) -> None:
    workspace = Workspace(layout)
    resolved = workspace.check(path).unwrap()
    assert resolved.is_absolute()
    assert resolved.is_relative_to(workspace.root)
    assert resolved == Path(os.path.realpath(layout / path))


def test_the_root_is_resolved_so_a_linked_root_works(layout: Path) -> None:
    alias = layout.parent / "alias"
    alias.symlink_to(layout)
    assert Workspace(alias).check("sub/b.txt").unwrap() == layout.resolve() / "sub" / "b.txt"
    with pytest.raises(ValueError, match="not a directory"):
        Workspace(layout / "a.txt")


SEGMENTS = ["a.txt", "sub", "deeper", "new", "..", ".", "", "link_out", "link_in", "link_sibling",
            "up", "chain", "ws", "ws-sibling", "secret", "~", "\x00", "b\\c"]  # fmt: skip


def generated_paths(count: int, seed: int) -> list[str]:
    chance = random.Random(seed)
    paths = []
    for _ in range(count):
        parts = [chance.choice(SEGMENTS) for _ in range(chance.randint(1, 6))]
        paths.append(("/" if chance.random() < 0.05 else "") + "/".join(parts))
    return paths


def inside_on_disk(root: Path, path: str) -> bool:
    real = Path(os.path.realpath(root / path))
    return real.is_relative_to(root.resolve())


def test_ten_thousand_generated_paths_accepted_only_when_inside(layout: Path) -> None:
    workspace = Workspace(layout)
    accepted = 0
    for path in generated_paths(10_000, seed=8):
        result = workspace.check(path)
        if isinstance(result, Success):
            accepted += 1
            assert inside_on_disk(layout, path), path
            assert "\x00" not in path
            assert not path.startswith("/")
        else:
            assert result.failure().reason
    # Both outcomes are common, so the property is not vacuous.
    assert 1_000 < accepted < 9_000


@given(st.lists(st.sampled_from(SEGMENTS), min_size=1, max_size=8))
def test_the_text_check_never_lets_dot_dot_climb_out(parts: list[str]) -> None:
    text = "/".join(parts)
    result = check_relative_path(text)
    depth = 0
    climbed = False
    for part in parts:
        if part == "..":
            depth -= 1
            climbed = climbed or depth < 0
        elif part not in ("", "."):
            depth += 1
    bad_text = any(c in text for c in "\x00\\") or text.startswith(("/", "~")) or not text
    assert isinstance(result, Failure) == (climbed or bad_text)
    if isinstance(result, Success):
        assert ".." not in result.unwrap().parts


class WriteFiles:
    """A file-affecting tool: the paths are its ``paths`` argument."""

    name = "write_files"
    description = "write files"
    parameters = {"type": "object"}  # noqa: RUF012 - a plain test double
    tier = Tier.CONFIRM
    capabilities = frozenset({ToolCapability.FILE_WRITE})

    def affected_paths(self, request: ToolRequest) -> frozenset[PurePosixPath]:
        return frozenset(PurePosixPath(p) for p in request.arguments["paths"])


def test_a_tools_affected_paths_are_checked_against_the_workspace(layout: Path) -> None:
    tool = WriteFiles()
    assert isinstance(tool, FileAffectingTool)
    workspace = Workspace(layout)
    good = ToolRequest(tool_name="write_files", arguments={"paths": ["a.txt", "sub/new.txt"]})
    assert workspace.affected_paths(tool, good).unwrap() == frozenset(
        {workspace.root / "a.txt", workspace.root / "sub" / "new.txt"}
    )
    bad = ToolRequest(tool_name="write_files", arguments={"paths": ["a.txt", "link_out/x"]})
    error = workspace.affected_paths(tool, bad).failure()
    assert error.path == "link_out/x"
    assert "symlink" in error.reason
