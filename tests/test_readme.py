"""The README's commands are the ones CI and the docs actually run."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def test_ci_runs_the_readme_test_command() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8")
    assert ".venv/bin/pip install -e '.[dev]' && .venv/bin/python -m pytest" in readme
    assert ".venv/bin/pip install --quiet -e '.[dev]'" in ci
    assert "\n.venv/bin/python -m pytest 2>&1" in ci


def test_the_readme_starts_with_the_demo_the_debugger_and_the_tests() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    blocks = readme.split("```sh\n")
    setup = "python3 -m venv .venv && .venv/bin/pip install"
    assert blocks[1].startswith(f"{setup} -e . && .venv/bin/correx-tools demo\n")
    serve = ".venv/bin/pip install -e '.[serve]' && .venv/bin/correx-tools serve correx-demo.sqlite"
    assert blocks[2].startswith(serve)
    # Right after the demo's debugger: the same debugger over an agent's own folder.
    assert blocks[3].startswith(".venv/bin/correx-tools serve ~/.claude/projects\n")
    assert blocks[4].startswith(f"{setup} -e '.[dev]' && .venv/bin/python -m pytest\n")


def test_the_quickstart_example_runs_and_shows_time_travel() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    assert "docs/examples/quickstart.py" in readme
    result = subprocess.run(
        [sys.executable, str(ROOT / "docs" / "examples" / "quickstart.py")],
        capture_output=True, text=True, check=True, timeout=120,
    )  # fmt: skip
    assert "replayed 12 events" in result.stdout
    assert "the first failure appears at sequence 6" in result.stdout
    assert "test-1: STARTED -> FAILED" in result.stdout
    assert result.stderr == ""
