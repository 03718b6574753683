"""The mutation check: every bug ``tests/mutants.py`` plants in the core is caught."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from . import mutants

ROOT = Path(__file__).resolve().parent.parent


SHARES = 4
"""The mutants are planted in this many tests, so that the test workers share them out."""


@pytest.mark.slow  # the core's tests once per mutant: minutes of CPU
@pytest.mark.parametrize("share", range(SHARES))
def test_every_planted_bug_is_caught_by_the_core_tests(share: int) -> None:
    # The unmutated tests run in this same session, so the baseline run is skipped.
    numbers = list(range(1 + share, len(mutants.MUTANTS) + 1, SHARES))
    done = subprocess.run(
        [sys.executable, str(ROOT / "tests" / "mutants.py"), "--skip-baseline",
         "--mutants", ",".join(map(str, numbers))],
        cwd=ROOT, capture_output=True, text=True, check=False, timeout=900,
    )  # fmt: skip
    assert done.returncode == 0, done.stdout + done.stderr
    assert f"{len(numbers)} of {len(numbers)} mutants killed" in done.stdout
    assert done.stdout.count(": killed in") == len(numbers) >= 5


def test_every_mutant_still_applies_to_the_code() -> None:
    # A refactor that moves the mutated text must update the mutants, not skip them.
    for mutant in mutants.MUTANTS:
        text = (ROOT / mutant.path).read_text(encoding="utf-8")
        assert text.count(mutant.old) == 1, mutant.name
