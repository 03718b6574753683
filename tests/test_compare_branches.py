"""Many runs of one task: the tree of where they split, by rule and on 100 stored sessions."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from correx_tools import (
    InvocationId,
    SessionId,
    SQLiteEventStore,
    Tier,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolReceipt,
    ToolRequest,
)
from correx_tools.core.replay.branches import Branch, split_tree

from .test_cli import fails, run, run_json

runs = st.lists(st.lists(st.integers(0, 2), max_size=6), max_size=8)


def walk(branch: Branch) -> list[Branch]:
    return [branch, *(b for child in branch.children for b in walk(child))]


@given(runs, st.data())
def test_each_run_ends_in_one_branch_and_each_branch_holds_what_its_runs_share(
    keys: list[list[int]], data: st.DataObject
) -> None:
    failed = data.draw(st.lists(st.booleans(), min_size=len(keys), max_size=len(keys)))
    root = split_tree(keys, failed)
    assert root.runs == tuple(range(len(keys)))
    ended = sorted(r for branch in walk(root) for r in branch.ended)
    assert ended == list(range(len(keys)))
    for branch in walk(root):
        end = branch.start + branch.shared
        assert branch.failed == sum(failed[r] for r in branch.runs)
        assert len({tuple(keys[r][branch.start : end]) for r in branch.runs}) <= 1
        assert all(len(keys[r]) >= end for r in branch.runs)
        assert all(len(keys[r]) == end for r in branch.ended)
        below = [r for child in branch.children for r in child.runs]
        assert sorted(below + list(branch.ended)) == sorted(branch.runs)
        # Siblings part at their first call: each child begins with a call of its own.
        firsts = [keys[child.runs[0]][end] for child in branch.children]
        assert len(set(firsts)) == len(firsts)
        assert all(child.start == end and child.shared >= 1 for child in branch.children)
        # A branch goes on as long as its runs agree: it splits in two ways at least, or ends.
        assert len(branch.children) != 1 or branch.ended


def write_runs(path: Path) -> None:
    """100 runs: 70 read the test file first (50 then edit, 20 then run the tests; 7 of the
    70 fail at the end), the 30 others run the tests first, and all fail."""
    at = datetime(2026, 1, 1, tzinfo=UTC)
    with SQLiteEventStore(path) as store:
        for number in range(100):
            session = SessionId(f"run-{number:03d}")
            if number < 70:
                second = "Edit" if number < 50 else "Bash"
                calls = [("Read", "tests/test_x.py"), (second, "src/x.py"), ("Bash", "pytest")]
                last_fails = number % 10 == 0
            else:
                calls = [("Bash", "pytest"), ("Bash", "pytest")]
                last_fails = True
            events: list[object] = []
            for index, (tool, target) in enumerate(calls):
                call = InvocationId(f"{session}/call-{index}")
                request = ToolRequest(tool_name=tool, arguments={"target": target})
                events += [
                    ToolInvocationRequestedEvent(
                        invocation_id=call, tool_name=tool, tier=Tier.AUTO, request=request
                    ),
                    ToolExecutionStartedEvent(invocation_id=call),
                    ToolExecutionFailedEvent(
                        invocation_id=call, reason="1 failed", recoverable=True
                    )
                    if last_fails and index == len(calls) - 1
                    else ToolExecutionCompletedEvent(invocation_id=call, receipt=ToolReceipt()),
                ]
            store.append(
                session, events, expected_sequence=0, recorded_at=at + timedelta(seconds=number)
            )


def test_the_tree_of_100_runs_says_where_they_split_and_how_each_way_ended(tmp_path: Path) -> None:
    path = tmp_path / "runs.sqlite"
    write_runs(path)
    document = run_json("compare", str(path), "--match", "run-*")
    assert len(document["runs"]) == 100
    assert document["failed"] == 7 + 30
    root = document["tree"]
    assert (root["runs"], root["shared"]) == (100, 0)
    read, tested = root["children"]
    assert (read["runs"], read["failed"], read["call"]["tool_name"]) == (70, 7, "Read")
    assert read["call"]["arguments"] == {"target": "tests/test_x.py"}
    assert (tested["runs"], tested["failed"], tested["shared"]) == (30, 30, 2)
    assert tested["ended"] == [f"run-{n:03d}" for n in range(70, 100)]
    edited, ran = read["children"]
    assert (edited["runs"], edited["failed"], edited["shared"]) == (50, 5, 2)
    assert (ran["runs"], ran["failed"], ran["call"]["tool_name"]) == (20, 2, "Bash")
    text = run("compare", str(path), "--match", "run-*").stdout
    assert "100 runs, 37 ended with a failure" in text
    assert "├─ 70 runs (7 failed) call 1: Read tests/test_x.py" in text
    assert "└─ 30 runs (30 failed) call 1: Bash pytest, then 1 call alike" in text
    # Named sessions and a pattern together; a pattern that matches nothing; --with.
    some = run_json("compare", str(path), "run-000", "run-070", "run-080")
    assert [child["runs"] for child in some["tree"]["children"]] == [1, 2]
    fails("compare", str(path), "--match", "nope-*", words="no session matches 'nope-*'")
    fails("compare", str(path), "run-000", "run-001", "run-002", "--with", str(path),
          words="--with compares two sessions")  # fmt: skip
    fails("compare", str(path), "run-000", words="compare needs two sessions, A and B")
