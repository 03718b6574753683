"""Start-up: how long the command takes to answer, over a bare interpreter started the same way.

Each row runs a command and its bare twin in turn, ``repeat`` times each, from one small
launcher process (so this process's size costs neither of them anything), and takes the
difference of their medians: what importing and running ``correx_tools`` adds to starting
Python at all. The twin of ``python -m correx_tools --version`` is ``python -c pass``; the
twin of the installed ``correx-tools`` script is a script with the same first line (the
same interpreter, started the same way) that imports only what the installed script
itself imports besides the package. Taking the two in turn means a machine that slows
down half way slows both.

``sessions`` and ``replay`` read a small Claude Code transcript through the transcript
cache, warmed by a run before the timed ones: what a person who asks again and again
waits for. Issue 54 set the four targets.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path

from .table import Row
from .transcripts import claude_code_file

TARGETS_MS = {"--version": 50.0, "--help": 100.0, "sessions": 150.0, "replay": 200.0}
"""Milliseconds over the bare interpreter, by the command's first word (issue 54)."""
CALLS = 100
"""Tool calls in the small transcript ``sessions`` and ``replay`` read."""

# Alternates the argument lists given, times each run from spawn to exit, and prints the
# times as JSON; its own start-up is paid once, before any timing.
_ALTERNATE = """
import json, os, sys, time
n, argvs = int(sys.argv[1]), json.loads(sys.argv[2])
quiet = [(os.POSIX_SPAWN_OPEN, 1, os.devnull, os.O_WRONLY, 0),
         (os.POSIX_SPAWN_OPEN, 2, os.devnull, os.O_WRONLY, 0)]
times = [[] for _ in argvs]
for _ in range(n):
    for kept, argv in zip(times, argvs):
        started = time.perf_counter()
        pid = os.posix_spawn(argv[0], argv, os.environ, file_actions=quiet)
        _, status, _ = os.wait4(pid, 0)
        kept.append(time.perf_counter() - started)
        if os.waitstatus_to_exitcode(status) != 0:
            sys.exit(f"{' '.join(argv)} exited {os.waitstatus_to_exitcode(status)}")
print(json.dumps(times))
"""


def alternated(argvs: Sequence[Sequence[str]], repeat: int, env: dict[str, str]) -> list[float]:
    """The median seconds of each argument list, run in turn ``repeat`` times."""
    done = subprocess.run(
        [sys.executable, "-c", _ALTERNATE, str(repeat), json.dumps([list(a) for a in argvs])],
        capture_output=True, text=True, env=env, check=False,
    )  # fmt: skip
    if done.returncode != 0:
        raise RuntimeError(f"start-up rows: {done.stderr.strip()}")
    return [statistics.median(times) for times in json.loads(done.stdout)]


def installed_script() -> Path | None:
    """The ``correx-tools`` script installed beside this Python, if there is one."""
    found = shutil.which("correx-tools", path=os.path.dirname(sys.executable))
    return Path(found) if found else None


def bare_script(script: Path, directory: Path) -> Path:
    """A script started as ``script`` is (its first line) that imports what ``script``
    imports besides the package, and exits."""
    first = script.read_text(encoding="utf-8").splitlines()[0]
    bare = directory / "bare-script"
    bare.write_text(f"{first}\nimport re\nimport sys\nsys.exit(0)\n", encoding="utf-8")
    bare.chmod(0o755)
    return bare


def startup_rows(directory: Path, repeat: int) -> list[Row]:
    """``--version`` run both ways, then ``--help``, ``sessions`` and ``replay`` of a small
    transcript (the cache warm) through the installed script, each over its bare twin."""
    folder = directory / "startup"
    folder.mkdir()
    transcript = claude_code_file(folder / "session.jsonl", CALLS)
    env = {**os.environ, "XDG_CACHE_HOME": str(folder / "cache"), "NO_COLOR": "1"}
    python = [sys.executable]
    module = [*python, "-m", "correx_tools"]
    script = installed_script()
    runner, bare, how = (
        ([str(script)], [str(bare_script(script, folder))], "a bare script")
        if script
        else (module, [*python, "-c", "pass"], "python -c pass")
    )
    questions = {
        "sessions": ["sessions", str(transcript)],
        "replay": ["replay", str(transcript), "bench-session"],
    }
    for arguments in questions.values():  # the cache filled before anything is timed
        subprocess.run([*runner, *arguments], env=env, capture_output=True, check=True)
    cases = [
        ("python -m correx_tools --version", module + ["--version"], [*python, "-c", "pass"],
         "python -c pass", "--version"),
        ("correx-tools --version", [*runner, "--version"], bare, how, "--version"),
        ("correx-tools --help", [*runner, "--help"], bare, how, "--help"),
        (f"correx-tools sessions TRANSCRIPT ({CALLS} calls, cache warm)",
         [*runner, *questions["sessions"]], bare, how, "sessions"),
        (f"correx-tools replay TRANSCRIPT SESSION ({CALLS} calls, cache warm)",
         [*runner, *questions["replay"]], bare, how, "replay"),
    ]  # fmt: skip
    rows = []
    for label, argv, twin, twin_name, target in cases:
        ours, theirs = alternated([argv, twin], repeat, env)
        over = max(ours - theirs, 0.0) * 1000
        limit = TARGETS_MS[target]
        rows.append(
            Row(
                f"start-up: {label}",
                f"median of {repeat}",
                f"{over:,.0f} ms over the bare start ({ours * 1000:,.0f} ms in all)",
                f"{theirs * 1000:,.0f} ms ({twin_name})",
                ours / theirs,
                f"<= {limit:g} ms over it",
                over <= limit,
            )
        )
    return rows
