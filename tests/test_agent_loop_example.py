"""The agent-loop example runs as a program and does what its page says."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

EXAMPLE = Path(__file__).resolve().parent.parent / "docs" / "examples" / "agent_loop.py"


def test_the_agent_loop_example_records_and_looks_back() -> None:
    result = subprocess.run(
        [sys.executable, str(EXAMPLE)], capture_output=True, text=True, timeout=120, check=True
    )
    lines = result.stdout.splitlines()
    assert result.stderr == ""
    loop = lines[1 : lines.index("Looking back:")]
    outcomes = {line.split()[0]: line.split()[2] for line in loop if line.startswith("  toolu_0")}
    assert outcomes == {
        "toolu_01": "ok",
        "toolu_02": "ok",
        "toolu_03": "error",  # invalid arguments: recorded as rejected
        "toolu_04": "error",  # a path outside the workspace: rejected by the policy
        "toolu_05": "error",  # ran and failed
        "toolu_06": "ok",
        "toolu_07": "error",  # no such tool: nothing recorded
    }
    assert any("Starting toolu_02 again" in line and "nothing recorded" in line for line in lines)
    assert "  16 events, 6 invocations: {'completed': 3, 'failed': 1, 'rejected': 2}" in lines
    assert "  toolu_05 at 13: failed no file missing.md" in lines
    assert "  from 6 to 12: toolu_04 new -> rejected" in lines
    assert any("climbs above the workspace root" in line for line in lines)
