"""``compare`` on published runs of one task (``tests/data/runs``): by three SWE-agent runs, by
OpenHands and mini-swe-agent, and an evaluation's folder, as a real subprocess.

Each case is one the comparison got wrong on these runs before it compared calls by what
they did: spelling counted as divergence, SWE-agent's windowed edits named no file,
different agents never lined up, and how each run ended was nowhere."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from .test_cli import DATA, run, run_json

RUNS = DATA / "runs"
MISSING_COLON = RUNS / "swe-agent-test-repo-i1"
RUN_A = MISSING_COLON / "run-a_gpt4_2024-04-07_5steps" / "klieret__swe-agent-test-repo-i1.traj"
RUN_B = MISSING_COLON / "run-b_gpt4_2024-04-11_8steps" / "6e44b9__sweagenttestrepo-1c2844.traj"
RUN_C = (
    MISSING_COLON
    / "run-c_gpt-4o_2024-11-25_sweagent1.0_5steps"
    / "6e44b9__sweagenttestrepo-1c2844.traj"
)
OPENHANDS = RUNS / "openhands-claude-3.5-sonnet" / "django__django-11099"
OPENHANDS_LOG = OPENHANDS / "litellm_proxy__claude-3-5-sonnet-20241022-1733344284.03328.json"
EVALUATION = RUNS / "mini-swe-agent-gemini-3-pro"
MINI = EVALUATION / "trajs" / "django__django-11099" / "django__django-11099.traj.json"
VALIDATORS = "django/contrib/auth/validators.py"


def compare(a: Path, b: Path) -> Any:
    return run_json("compare", *pair(a, b), "--limit", "0")


def pair(a: Path, b: Path) -> list[str]:
    """``compare``'s arguments for the one session of each file."""
    return [str(a), session_of(a), session_of(b), "--with", str(b)]


def session_of(path: Path) -> str:
    (found,) = run_json("sessions", str(path))["sessions"]
    return str(found["session_id"])


def shown(call: dict[str, Any] | None) -> str | None:
    return None if call is None else f"{call['kind']} {call['target']}"


def test_spelling_is_not_a_divergence_between_swe_agent_runs_of_two_releases() -> None:
    # find_file "missing_colon.py" against find_file missing_colon.py; open tests/x.py
    # against open "/SWE-agent__test-repo/tests/x.py": the same calls, spelled otherwise.
    document = compare(RUN_A, RUN_C)
    rows = [(row["kind"], row["by"], shown(row["a"])) for row in document["rows"]]
    assert rows[:2] == [
        ("same", "meaning", "search find_file missing_colon.py"),
        ("same", "meaning", "read tests/missing_colon.py"),
    ]
    # The windowed edit 4:4 and 1.0's search-and-replace edit the same file otherwise.
    assert rows[2] == ("changed", "target", "edit tests/missing_colon.py")
    assert rows[4] == ("same", "exact", "submit ")
    assert document["first_divergence"]["a"]["position"] == 2
    assert (document["a"]["root"], document["b"]["root"]) == (
        "/klieret__swe-agent-test-repo", "/SWE-agent__test-repo"
    )  # fmt: skip
    # Both ended with the same fix of the same file, as each final patch says.
    workspace = document["workspace"]
    assert workspace["alike"] == ["tests/missing_colon.py"]
    assert workspace["differing"] == workspace["unknown"] == []
    text = run("compare", *pair(RUN_A, RUN_C)).stdout
    assert "spelled otherwise" in text
    assert "both changed tests/missing_colon.py the same way" in text


def test_windowed_edits_name_the_file_open_at_the_time() -> None:
    # edit 4:4 ... end_of_edit names no file: it edits the file the run opened.
    document = compare(RUN_A, RUN_B)
    workspace = document["workspace"]
    assert workspace["a_files"] == [{"path": "tests/missing_colon.py", "edits": 1,
                                     "change": "patch"}]  # fmt: skip
    assert workspace["b_files"] == [{"path": "tests/missing_colon.py", "edits": 3,
                                     "change": "patch"}]  # fmt: skip
    # Four calls agree, then one submits while the other edits the same file again.
    assert document["first_divergence"]["a"]["position"] == 4
    assert workspace["first_difference"]["row"] == 4
    assert workspace["differing"] == ["tests/missing_colon.py"]
    (change,) = workspace["changes"]
    assert change["a"]["of"] == change["b"]["of"] == "patch"
    added = [text for hunk in change["b"]["hunks"] for op, text in hunk["lines"] if op == "+"]
    assert '        raise ValueError("Cannot divide by zero")' in added
    text = run("compare", *pair(RUN_A, RUN_B)).stdout
    assert "files a changed: tests/missing_colon.py (final patch; 1 edit)" in text
    assert "never differ" not in text


def test_openhands_and_mini_swe_agent_line_up_on_the_files_both_read_and_edited() -> None:
    document = compare(OPENHANDS_LOG, MINI)
    a, b = document["a"], document["b"]
    assert (a["format"], b["format"]) == ("openhands-completion", "mini-swe-agent")
    # The workspace each was given, though one recorded a working directory and the other
    # named it only in its task: the same repository under two paths.
    assert (a["root"], b["root"]) == ("/workspace/django__django__3.0", "/testbed")
    rows = [(row["kind"], row["by"], shown(row["a"]), shown(row["b"])) for row in document["rows"]]
    read = f"read {VALIDATORS}"
    assert ("same", "meaning", read, read) in rows  # str_replace_editor view against cat
    edit = f"edit {VALIDATORS}"
    assert ("changed", "target", edit, edit) in rows  # str_replace against sed -i
    assert rows[-1][:2] == ("same", "meaning") and rows[-1][2] == "submit "  # finish / echo
    # Both changed the one file the same way: OpenHands' two replacements (its first, which
    # replaced nothing, does not count) are the lines mini-swe-agent's final patch changed.
    workspace = document["workspace"]
    assert workspace["alike"] == [VALIDATORS]
    assert [f["path"] for f in workspace["b_files"]] == [VALIDATORS]  # its scratch files gone
    assert {f["path"]: f["edits"] for f in workspace["a_files"]}[VALIDATORS] == 2
    # How each ended, from what its harness wrote beside it.
    for side, by in ((a, "eval_instance_django__django-11099.log"), (b, "report.json")):
        outcome = side["outcome"]
        assert (outcome["task"], outcome["verdict"], outcome["evaluated_by"]) == (
            "django__django-11099", "resolved", by
        )  # fmt: skip
    assert b["outcome"]["model_calls"] == 21 and b["outcome"]["exit_status"] == "Submitted"
    text = run("compare", *pair(OPENHANDS_LOG, MINI)).stdout
    assert "outcome: resolved (eval_instance_django__django-11099.log)" in text
    assert "outcome: resolved (report.json); task django__django-11099" in text
    assert f"both changed {VALIDATORS} the same way" in text


def test_mini_swe_agent_and_the_completion_log_keep_model_tokens_cost_and_the_last_call(
    tmp_path: Path,
) -> None:
    store = tmp_path / "runs.sqlite"
    for path in (MINI, OPENHANDS_LOG):
        run("import-transcript", str(path), str(store))
    sessions = {row["transcript"]["format"]: row for row in
                run_json("sessions", str(store))["sessions"]}  # fmt: skip
    mini = sessions["mini-swe-agent"]
    assert mini["invocations"] == 21 and mini["statuses"]["completed"] == 21
    assert mini["exited_nonzero"] == 1  # a grep that found nothing
    assert mini["models"] == ["google/gemini-3-pro-preview"]
    assert mini["transcript"]["cwd"] == "/testbed"
    assert mini["transcript"]["outcome"]["verdict"] == "resolved"
    assert mini["transcript"]["outcome"]["cost"] > 0.13
    log = sessions["openhands-completion"]
    assert log["invocations"] == 16 and log["statuses"]["completed"] == 16  # finish ended it
    assert log["models"] == ["litellm_proxy/anthropic.claude-3-5-sonnet-20241022-v2:0"]
    assert (log["tokens"]["input"], log["tokens"]["output"]) == (24_680, 336)
    assert log["transcript"]["outcome"]["cost"] == json.loads(OPENHANDS_LOG.read_text())["cost"]


def test_an_evaluation_folder_by_task_with_each_runs_outcome(tmp_path: Path) -> None:
    document = run_json("compare", str(EVALUATION), "--by-task")
    tasks = {task["task"]: task for task in document["tasks"]}
    assert sorted(tasks) == ["django__django-10999", "django__django-11099"]
    assert (document["resolved"], document["unresolved"]) == (1, 1)
    assert tasks["django__django-10999"]["runs"][0]["outcome"]["verdict"] == "unresolved"
    text = run("compare", str(EVALUATION), "--by-task").stdout
    assert text.startswith("2 tasks, 2 runs: 1 resolved, 1 unresolved, 0 not evaluated")
    assert "report.json" not in run("compare", str(EVALUATION), "--by-task").stderr


def test_where_resolved_and_unresolved_runs_of_one_task_part(tmp_path: Path) -> None:
    # Two agents' runs of django__django-11099; the OpenHands run's verdict is one this test
    # writes (unresolved), so that the task has both: its real log says resolved.
    folder = tmp_path / "evaluation"
    shutil.copytree(EVALUATION / "trajs" / "django__django-11099", folder / "mini")
    shutil.copytree(EVALUATION / "logs", folder / "logs")
    (folder / "openhands").mkdir()
    shutil.copy(OPENHANDS_LOG, folder / "openhands")
    (folder / "openhands" / "eval_instance_django__django-11099.log").write_text(
        "Result for django__django-11099: resolved: False\n", encoding="utf-8"
    )
    document = run_json("compare", str(folder), "--by-task")
    (task,) = document["tasks"]
    tree = task["tree"]
    assert (tree["runs"], tree["resolved"], tree["unresolved"]) == (2, 1, 1)
    resolved, unresolved = sorted(tree["children"], key=lambda child: -child["resolved"])
    assert resolved["call"] == {"tool_name": "bash", "kind": "list",
                                "target": "ls -R | grep -i validators", "invocation_id": None,
                                "arguments": None}  # fmt: skip
    assert unresolved["unresolved"] == 1
    assert document["partings"] == [
        {"resolved_did": "list", "unresolved_did": "list", "pairs": 1, "tasks": 1}
    ]
    text = run("compare", str(folder), "--by-task").stdout
    assert "the resolved run listed a folder where the unresolved listed a folder: 1 pair" in text
