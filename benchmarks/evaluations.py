"""``compare FOLDER --by-task`` on an evaluation's folder: 500 tasks, three runs each, as
mini-swe-agent and SWE-bench write them.

Each run is a mini-swe-agent trajectory (``<task>-run<k>.traj.json``, 20 shell commands
with a reply of a few kilobytes each, the model's usage on every answer, its submission)
with SWE-bench's ``report.json`` beside it; the three runs of a task share their first
commands and then go their own ways, and one of them fails its task. The issue's target:
grouped and summarised in at most 60 seconds and 200 MB, the first time the folder is
read (every file read into a new cache) and again once it is cached.
"""

from __future__ import annotations

import json
from pathlib import Path

from .commands import measured
from .table import Row

SECONDS = 60.0
PEAK_MEGABYTES = 200
CALLS = 20
OUTPUT = "line of output from the command, as a real one prints it\n" * 40


def trajectory(task: str, run: int, resolved: bool) -> dict[str, object]:
    """One run of ``task``: the first five commands shared with the task's other runs."""
    messages: list[dict[str, object]] = [
        {"role": "system", "content": "You are a helpful assistant."},
        {"role": "user", "content": f"<pr_description>Fix {task}.</pr_description>"},
    ]
    for number in range(CALLS):
        if number < 5:
            command = ["ls -R | grep test", f"cat src/{task}/core.py", "grep -rn 'def f' src",
                       "python -m pytest -q tests", f"cat tests/test_{task}.py"][number]  # fmt: skip
        elif number % 4 == 1:
            command = f"sed -i 's/x{run}/y{number}/' src/{task}/core.py"
        elif number % 4 == 2:
            command = f"cat <<'EOF' > check_{run}.py\nimport {task}\nprint({number})\nEOF"
        else:
            command = f"python -m pytest -q tests -k case_{run}_{number}"
        if number == CALLS - 1:
            command = (
                "echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git add -A && git diff --cached"
            )
        response = {"id": f"{task}-{run}-{number}", "model": "model-x", "created": 1_763_509_284,
                    "usage": {"prompt_tokens": 9_000 + number, "completion_tokens": 120,
                              "prompt_tokens_details": {"cached_tokens": 8_000}}}  # fmt: skip
        messages.append({"role": "assistant", "extra": {"response": response},
                         "content": f"THOUGHT: step {number}.\n\n```bash\n{command}\n```"})  # fmt: skip
        messages.append({"role": "user", "content": f"<returncode>{number % 3 == 0:d}</returncode>"
                         f"\n<output>\n{OUTPUT}</output>"})  # fmt: skip
    patch = f"diff --git a/src/{task}/core.py b/src/{task}/core.py\n--- a/src/{task}/core.py\n"
    patch += f"+++ b/src/{task}/core.py\n@@ -1,1 +1,1 @@\n-x{run}\n+y{resolved:d}\n"
    return {
        "trajectory_format": "mini-swe-agent-1",
        "instance_id": task,
        "info": {"exit_status": "Submitted", "submission": patch,
                 "model_stats": {"instance_cost": 0.13, "api_calls": CALLS},
                 "config": {"environment": {"cwd": "/testbed"}}},
        "messages": messages,
    }  # fmt: skip


def evaluation(folder: Path, tasks: int, runs: int) -> int:
    """Write ``tasks`` tasks of ``runs`` runs each under ``folder``; its size in bytes."""
    size = 0
    for number in range(tasks):
        task = f"project__project-{10_000 + number}"
        for run in range(runs):
            here = folder / f"run-{run}" / task
            here.mkdir(parents=True)
            resolved = run != number % runs  # one run of each task fails it
            text = json.dumps(trajectory(task, run, resolved))
            (here / f"{task}-run{run}.traj.json").write_text(text, encoding="utf-8")
            report = json.dumps({task: {"resolved": resolved, "patch_exists": True}})
            (here / "report.json").write_text(report, encoding="utf-8")
            size += len(text) + len(report)
    return size


def evaluation_rows(tasks: int, runs: int, directory: Path) -> list[Row]:
    """The first reading of the folder (a cache of its own, filled) and a later one."""
    folder = directory / "evaluation"
    size = evaluation(folder, tasks, runs)
    cache = directory / "evaluation-cache.sqlite"
    asked = ["compare", str(folder), "--by-task", "--json", "--cache", str(cache)]
    first, first_peak = measured(asked, 1)
    again, again_peak = measured(asked, 3)
    label = f"{tasks:,} tasks x {runs}, {size / 1e6:,.0f} MB"
    return [
        Row("compare --by-task, an evaluation's folder read the first time", label,
            f"{first:.1f} s, peak {first_peak:.0f} MB", "-", None,
            f"<= {SECONDS:g} s and <= {PEAK_MEGABYTES} MB",
            first <= SECONDS and first_peak <= PEAK_MEGABYTES),
        Row("compare --by-task, the folder read again (cached)", label,
            f"{again:.1f} s, peak {again_peak:.0f} MB", "-", None,
            f"<= {SECONDS:g} s and <= {PEAK_MEGABYTES} MB",
            again <= SECONDS and again_peak <= PEAK_MEGABYTES),
    ]  # fmt: skip
