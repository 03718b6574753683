"""Comparing runs from Python (`compare_sessions`, `split_runs`): the documents the command
prints, from repositories a program holds, and a clear failure for a name that is no
session's."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from returns.result import Failure

from correx_tools import (
    DefaultToolRepository,
    EventReplayer,
    SQLiteEventStore,
    UnresolvedId,
    compare_sessions,
    import_transcript,
    split_runs,
)
from correx_tools.core.report.redaction import Redaction

from .compare_runs import Call, claude_run
from .test_cli import run_json
from .test_compare_command import RUN_A, RUN_B

TOKEN = "ghp_" + "Z9y8X7w6V5u4T3s2R1q0P9o8N7m6L5k4J3i2"
RUN_C = [Call("Bash", {"command": f"echo {TOKEN}"}), *RUN_B[1:]]


def without_sources(document: dict[str, Any]) -> dict[str, Any]:
    """The document less what names where it was read from (a path, or a store's kind)."""
    found = dict(document)
    found.pop("source", None)
    for side in ("a", "b"):
        if side in found:
            found[side] = {k: v for k, v in found[side].items() if k != "source"}
    return found


def test_the_library_answers_what_the_command_prints(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    with SQLiteEventStore(path) as store:
        for name, cwd, calls in (("run-a", "/w/a", RUN_A), ("run-b", "/w/b", RUN_B),
                                 ("run-c", "/w/c", RUN_C)):  # fmt: skip
            written = claude_run(tmp_path / f"{name}.jsonl", name, cwd, calls)
            import_transcript(written, store).unwrap()
        repository = DefaultToolRepository(EventReplayer(store))
        two = compare_sessions(repository, "run-a", "run-b", limit=0).unwrap()
        tree = split_runs(repository, ["run-a", "run-b", "run-c"]).unwrap()
        masked = split_runs(repository, ["run-a", "run-c"], redaction=Redaction()).unwrap()
        unknown = compare_sessions(repository, "run-a", "nope")
        with pytest.raises(ValueError, match="two different sessions or more; got 1"):
            split_runs(repository, ["run-a", "run-a"])
    printed = run_json("compare", str(path), "run-a", "run-b", "--limit", "0")
    assert without_sources(two) == without_sources(printed)
    assert two["first_divergence"]["a"]["call"]["tool_name"] == "Edit"
    printed_tree = run_json("compare", str(path), "run-a", "run-b", "run-c")
    assert without_sources(tree) == without_sources(printed_tree)
    # The tree: a and b share their first two calls; c parts at its first.
    assert [child["runs"] for child in tree["tree"]["children"]] == [2, 1]
    assert TOKEN in str(tree) and TOKEN not in str(masked)
    assert isinstance(unknown, Failure) and isinstance(unknown.failure(), UnresolvedId)
    assert "nope" in unknown.failure().message
