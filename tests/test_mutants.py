"""The mutation check: every bug ``tests/mutants.py`` plants in the core is caught."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from . import mutants

ROOT = Path(__file__).resolve().parent.parent


@pytest.mark.slow  # the core's tests once per mutant: minutes; .ci/run runs it after the rest
def test_every_planted_bug_is_caught_by_the_core_tests() -> None:
    # The unmutated tests run in this same session, so the baseline run is skipped.
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "mutants.py"), "--skip-baseline"],
        cwd=ROOT,
        capture_output=True,
        text=True,
        check=False,
        timeout=600,
    )
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(mutants.MUTANTS)} of {len(mutants.MUTANTS)} mutants killed" in done.stdout
    assert done.stdout.count(": killed in") == len(mutants.MUTANTS) >= 5


def test_every_mutant_still_applies_to_the_code() -> None:
    # A refactor that moves the mutated text must update the mutants, not skip them.
    for mutant in mutants.MUTANTS:
        text = (ROOT / mutant.path).read_text(encoding="utf-8")
        assert text.count(mutant.old) == 1, mutant.name
