"""``correx-tools compare`` (run in this process) on real runs and hand-made ones whose first
divergence is known."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from .compare_runs import Call, claude_run
from .test_cli import DATA, fails, run, run_json

SWE_AGENT = DATA / "transcripts" / "swe-agent" / "marshmallow-1867_function_calling.traj"
OPENAI_CHAT = DATA / "transcripts" / "openai-chat" / "marshmallow-1867_history.json"

# One task run twice, each run in its own checkout: the same first two calls, then run a
# edits where run b reads, and both test again (b's test fails, and takes 5 s).
RUN_A = [
    Call("Read", {"file_path": "/w/a/tests/test_x.py"}),
    Call("Bash", {"command": "cd /w/a &&  pytest -q"}, "1 failed", error=True),
    Call("Edit", {"file_path": "/w/a/src/x.py", "old_string": "a", "new_string": "b"}),
    Call("Bash", {"command": "pytest -q"}),
]
RUN_B = [
    Call("Read", {"file_path": "/w/b/tests/test_x.py"}),
    Call("Bash", {"command": "cd /w/b && pytest -q"}, "1 failed", error=True),
    Call("Read", {"file_path": "/w/b/src/x.py"}),
    Call("Bash", {"command": "pytest -q"}, "1 failed", error=True, seconds=5),
]


def compare(*args: str) -> Any:
    return run_json("compare", *map(str, args))


def test_two_runs_in_their_own_checkouts_part_where_one_edits_and_the_other_reads(
    tmp_path: Path,
) -> None:
    a = claude_run(tmp_path / "a.jsonl", "run-a", "/w/a", RUN_A)
    b = claude_run(tmp_path / "b.jsonl", "run-b", "/w/b", RUN_B)
    document = compare(a, "run-a", "run-b", "--with", b)
    assert (document["a"]["cwd"], document["b"]["cwd"]) == ("/w/a", "/w/b")
    divergence = document["first_divergence"]
    assert (divergence["a"]["position"], divergence["b"]["position"]) == (2, 2)
    assert divergence["a"]["call"]["tool_name"] == "Edit"
    assert divergence["b"]["call"]["arguments"] == {"file_path": "/w/b/src/x.py"}
    for side in ("a", "b"):  # the state right before: one call done, one failed
        state = divergence[side]["state"]["statuses"]
        assert (state["completed"], state["failed"]) == (1, 1)
    assert document["rows_by_kind"] == {"same": 3, "changed": 0, "only_a": 1, "only_b": 1}
    kinds = [(row["kind"], row["differs"]) for row in document["rows"]]
    assert kinds == [
        ("same", []),  # other paths and whitespace, the same call
        ("same", []),
        ("only_a", []),
        ("only_b", []),
        ("same", ["outcome", "duration"]),
    ]
    text = run("compare", str(a), "run-a", "run-b", "--with", str(b)).stdout
    assert "first divergence after 2 matched calls:" in text
    assert "Edit /w/a/src/x.py" in text


def test_the_same_swe_bench_run_read_by_two_readers_does_not_diverge() -> None:
    document = compare(
        SWE_AGENT, "marshmallow", "marshmallow", "--with", OPENAI_CHAT, "--limit", "0"
    )
    assert document["first_divergence"] is None
    assert document["rows_by_kind"]["same"] == document["a"]["calls"] == 13
    assert len(document["rows"]) == 13
    # Neither transcript records a time or an exit code: no duration, no exit code made up.
    assert document["a"]["times_recorded"] is document["b"]["times_recorded"] is False
    calls = [row[side] for row in document["rows"] for side in ("a", "b")]
    assert {(call["duration"], call["exit_code"]) for call in calls} == {(None, None)}


@pytest.mark.parametrize("dropped", [0, 4, 12])
def test_a_real_run_with_one_call_taken_out_diverges_exactly_there(
    tmp_path: Path, dropped: int
) -> None:
    history = json.loads(OPENAI_CHAT.read_text(encoding="utf-8"))
    # Each call is an assistant message with one tool call, then the tool's answer.
    calls = [i for i, message in enumerate(history) if message.get("tool_calls")]
    at = calls[dropped]
    shorter = tmp_path / "marshmallow-1867_history.json"
    shorter.write_text(json.dumps(history[:at] + history[at + 2 :]), encoding="utf-8")
    document = compare(SWE_AGENT, "m", "m", "--with", shorter)
    divergence = document["first_divergence"]
    assert divergence["a"]["position"] == dropped
    assert document["rows_by_kind"]["only_a"] == 1
    assert document["rows_by_kind"]["same"] == 12
    if dropped == 12:  # the shorter run had ended: no call of its own there
        assert divergence["b"]["call"] is None


def test_two_sessions_of_the_demo(tmp_path: Path) -> None:
    db = tmp_path / "demo.sqlite"
    run("demo", "--db", str(db), "--sessions", "2", "--invocations", "150")
    same = compare(db, "demo-run01-session-1", "demo-run01-session-1", "--lenient")
    assert same["first_divergence"] is None
    document = compare(db, "demo-run01-session-1", "demo-run01-session-2", "--lenient")
    kinds = document["rows_by_kind"]
    assert kinds["same"] + kinds["changed"] + kinds["only_a"] == document["a"]["calls"] == 150
    assert kinds["same"] + kinds["changed"] + kinds["only_b"] == document["b"]["calls"] == 150
    assert document["first_divergence"] is not None
    # The demo's second session has an event the lifecycle refuses: strict says how to go on.
    fails("compare", str(db), "demo-run01-session-1", "demo-run01-session-2",
          words="--lenient skips events the lifecycle refuses")  # fmt: skip


def test_bad_names_are_one_line_errors(tmp_path: Path) -> None:
    a = claude_run(tmp_path / "a.jsonl", "run-a", "/w/a", RUN_A)
    fails("compare", str(a), "run-a", "nope", words="no session 'nope' (sessions: run-a)")
    fails("compare", str(a), "run-a", "run-a", "--with", str(tmp_path / "missing.sqlite"),
          words="missing.sqlite")  # fmt: skip
    fails("compare", str(a), "run-a", "run-a", "--limit", "-1", words="--limit=-1 is negative")


def test_what_a_run_wrote_cannot_steer_the_terminal(tmp_path: Path) -> None:
    hostile = [Call("Bash", {"command": "echo \x1b]0;owned\x07 \x1b[2J"})]
    a = claude_run(tmp_path / "a.jsonl", "run-a", "/w/a", hostile)
    b = claude_run(tmp_path / "b.jsonl", "run-b", "/w/b", RUN_B)
    text = run("compare", str(a), "run-a", "run-b", "--with", str(b)).stdout
    assert "\x1b" not in text
    assert "[U+001B]" in text


def test_where_two_runs_files_first_differ_and_how_a_file_ends_differently(
    tmp_path: Path,
) -> None:
    def write(root: str, text: str) -> Call:
        return Call("Write", {"file_path": f"{root}/src/x.py", "content": text})

    a = claude_run(tmp_path / "a.jsonl", "run-a", "/w/a", [
        write("/w/a", "x = 1\n"),
        Call("Bash", {"command": "pytest"}),
        write("/w/a", "x = 1\ny = 2\n"),
        # An edit that failed changed nothing: it is no difference.
        Call("Edit", {"file_path": "/w/a/README.md", "old_string": "a", "new_string": "b"},
             "String to replace not found", error=True),
    ])  # fmt: skip
    b = claude_run(tmp_path / "b.jsonl", "run-b", "/w/b", [
        write("/w/b", "x = 1\n"),
        Call("Bash", {"command": "pytest"}),
        write("/w/b", "x = 1\ny = 3\n"),
    ])  # fmt: skip
    workspace = compare(a, "run-a", "run-b", "--with", b)["workspace"]
    assert workspace["a_files"] == [{"path": "src/x.py", "edits": 2, "change": "text"}]
    assert workspace["b_files"] == [{"path": "src/x.py", "edits": 2, "change": "text"}]
    first = workspace["first_difference"]
    assert first["row"] == 2  # the same first write, in two checkouts, is no difference
    assert first["a"]["invocation_id"].endswith("_0002")
    assert workspace["differing"] == ["src/x.py"]
    (change,) = workspace["changes"]
    assert change["same"] is False and change["a"]["of"] == change["b"]["of"] == "text"
    assert [line for hunk in change["diff"]["hunks"] for line in hunk["lines"]] == [
        [" ", "x = 1"], ["-", "y = 2"], ["+", "y = 3"],
    ]  # fmt: skip
    same = compare(a, "run-a", "run-a")["workspace"]
    assert same["first_difference"] is None
    assert same["differing"] == same["unknown"] == []
    assert same["alike"] == ["src/x.py"]
