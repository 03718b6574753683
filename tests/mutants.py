"""Mutation check: plant small bugs in the core, and see that its tests catch each one.

The bugs go into the reducer, the fold, its batch path, the index and the
timeline's re-fold.

Run it from the project root::

    python tests/mutants.py            # every mutant, after a clean baseline run
    python tests/mutants.py --list     # what would be planted
    python tests/mutants.py --skip-baseline --mutants 1,5   # only these (numbered as listed)

Each mutant is one textual change to one module. The script copies the
package and the tests into a temporary directory, applies the change there
(the working tree is never touched), and runs the core's tests against the
copy with ``-x``. A mutant is *killed* when that run fails. The script exits
1 if any mutant survives, and 2 if the unmutated copy does not pass (then a
"kill" would prove nothing). ``tests/test_mutants.py`` runs it in CI.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# The tests that must notice a broken core: the table cell by cell, the fold,
# and the state machine against its model. Fastest first, so -x stops early.
TESTS = (
    "tests/test_reducer.py",
    "tests/test_fold.py",
    "tests/test_batch.py",
    "tests/test_reducer_model.py",
)


@dataclass(frozen=True)
class Mutant:
    """One planted bug: replace ``old`` (which must occur exactly once) by ``new`` in ``path``."""

    name: str
    path: str
    old: str
    new: str


TRANSITIONS = "correx_tools/core/lifecycle/transitions.py"
ROWS = "correx_tools/core/lifecycle/_engine/rows.py"
FOLD = "correx_tools/core/replay/fold.py"
BATCHING = "correx_tools/core/replay/batching.py"
BATCH = "correx_tools/core/lifecycle/_engine/batch.py"
INDEX = "correx_tools/core/lifecycle/_engine/index.py"
TIMELINE = "correx_tools/core/replay/timeline.py"

MUTANTS = (
    Mutant(
        "accept terminal -> terminal",
        TRANSITIONS,
        "_E.DUPLICATE_INVOCATION, _E.ILLEGAL_TRANSITION, _E.ILLEGAL_TRANSITION,\n"
        "    _E.ILLEGAL_TRANSITION, _E.ILLEGAL_TRANSITION,",
        "_E.DUPLICATE_INVOCATION, _E.ILLEGAL_TRANSITION, _S.COMPLETED,\n"
        "    _S.FAILED, _S.REJECTED,",
    ),
    Mutant(
        "accept Completed straight from REQUESTED",
        TRANSITIONS,
        "_E.DUPLICATE_INVOCATION, _S.STARTED, _E.ILLEGAL_TRANSITION, _S.FAILED, _S.REJECTED,",
        "_E.DUPLICATE_INVOCATION, _S.STARTED, _S.COMPLETED, _S.FAILED, _S.REJECTED,",
    ),
    Mutant(
        "accept a gap in the sequence numbers",
        FOLD,
        "if sequence == last + 1 and (session is None or stored.session_id == session):",
        "if sequence > last and (session is None or stored.session_id == session):",
    ),
    Mutant(
        "accept an event of another session",
        FOLD,
        "if sequence == last + 1 and (session is None or stored.session_id == session):",
        "if sequence == last + 1:",
    ),
    Mutant(
        "skip a re-delivered sequence even when its body differs",
        FOLD,
        "if previous is not None and sequence == last and stored == previous:",
        "if previous is not None and sequence == last:",
    ),
    Mutant(
        "set completed_at on Started",
        ROWS,
        "        row[STARTED_AT] = at\n        return None",
        "        row[STARTED_AT] = at\n        row[COMPLETED_AT] = at\n        return None",
    ),
    Mutant(
        "skip the time check",
        ROWS,
        "    if at < row[REQUESTED_AT]:",
        "    if False:",
    ),
    Mutant(
        "drop the duplicate-invocation check",
        ROWS,
        "    outcome = TABLE[row[STATUS]][type(event)]",
        "    outcome = TABLE[\n"
        "        None if type(event) is ToolInvocationRequestedEvent else row[STATUS]\n"
        "    ][type(event)]",
    ),
    Mutant(
        "lose the recoverable flag of a failure",
        ROWS,
        "row[RECOVERABLE] = event.recoverable",
        "row[RECOVERABLE] = True",
    ),
    Mutant(
        "keep an ended invocation's row open (and reuse it)",
        BATCH,
        "self._open.pop(row[0], None)",
        "pass",
    ),
    Mutant(
        "drop the updates to committed records at a commit",
        BATCH,
        "            self._updated[position] = record",
        "            pass",
    ),
    Mutant(
        "the batch path's own loop takes a gap in the sequence numbers",
        BATCH,
        "if sequence == last + 1 and (session is None or stored_event.session_id == session):",
        "if sequence > last and (session is None or stored_event.session_id == session):",
    ),
    Mutant(
        "the batch path's own loop goes on past a refused event",
        BATCH,
        "                elif self._apply_to_closed(stored_event, tool_event) is not None:\n"
        "                    return last, previous, session, stored_event\n",
        "                else:\n"
        "                    self._apply_to_closed(stored_event, tool_event)\n",
    ),
    Mutant(
        "the batch path's own loop skips the time check",
        BATCH,
        "elif at < row[REQUESTED_AT]:",
        "elif False:",
    ),
    Mutant(
        "the batch path's own loop sets completed_at on Started",
        BATCH,
        "                        row[STARTED_AT] = at\n",
        "                        row[STARTED_AT] = row[COMPLETED_AT] = at\n",
    ),
    Mutant(
        "the batch path's own loop loses the recoverable flag of a failure",
        BATCH,
        "row[RECOVERABLE] = tool_event.recoverable",
        "row[RECOVERABLE] = True or tool_event.recoverable",
    ),
    Mutant(
        "the batch path's own loop takes a second request of a committed id as new",
        BATCH,
        "and not (invocation in placed and self._state.position(invocation) is not None)",
        "and True",
    ),
    Mutant(
        "the batch path's own loop drops updates to committed records",
        BATCH,
        "                            updated[position] = record\n",
        "                            pass\n",
    ),
    Mutant(
        "a recorded fold's timeline also notes the event the batch loop stopped at",
        BATCHING,
        "recorder.record_applied(chunk[: cursor.last - before], engine.state)",
        "recorder.record_applied(chunk[: cursor.last - before + 1], engine.state)",
    ),
    Mutant(
        "a recorded fold drops the rest of a slice after the batch loop stops",
        BATCHING,
        "            yield from rest\n",
        "",
    ),
    Mutant(
        "a recorded fold's slice runs past the next checkpoint",
        BATCHING,
        "min(recorder.next_checkpoint() - cursor.last, SLICE)",
        "min(recorder.next_checkpoint() - cursor.last + 1, SLICE)",
    ),
    Mutant(
        "a re-fold on the batch path starts one event late",
        TIMELINE,
        "first = start + 1 - self._first_event",
        "first = start + 2 - self._first_event",
    ),
    Mutant(
        "a re-fold on the batch path runs over quarantined events",
        TIMELINE,
        "not quarantined or quarantined.isdisjoint(range(start + 1, stop + 1))",
        "True",
    ),
    Mutant(
        "trust the shared index without checking the record there",
        INDEX,
        "or records[position].invocation_id != invocation_id",
        "or False",
    ),
)


def copy_project(into: Path) -> None:
    """The package, the tests and the project file: all a test run needs."""
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for name in ("correx_tools", "tests"):
        shutil.copytree(ROOT / name, into / name, ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", into / "pyproject.toml")


def plant(copy: Path, mutant: Mutant) -> None:
    """Apply ``mutant`` to the copy; a change that no longer applies is an error, not a pass."""
    target = copy / mutant.path
    text = target.read_text(encoding="utf-8")
    found = text.count(mutant.old)
    if found != 1:
        raise SystemExit(
            f"mutant {mutant.name!r}: expected its text once in {mutant.path}, found it "
            f"{found} times; update tests/mutants.py to match the code"
        )
    target.write_text(text.replace(mutant.old, mutant.new), encoding="utf-8")


def run_tests(copy: Path) -> tuple[bool, float]:
    """Run the core's tests against ``copy``: (passed, seconds)."""
    # `python -m pytest` puts the working directory first on sys.path, so the
    # copy's package shadows the installed one; `imports_the_copy` checks it.
    env = {**os.environ, "HYPOTHESIS_PROFILE": os.environ.get("HYPOTHESIS_PROFILE", "ci")}
    started = time.perf_counter()
    # `-n 0`: in one process. Four files need no workers, and starting them for every
    # mutant doubled the CPU the check takes (it runs beside the other slow tests).
    done = subprocess.run(
        [sys.executable, "-m", "pytest", "-x", "-q", "-p", "no:cacheprovider", "-n", "0", *TESTS],
        cwd=copy,
        env=env,
        capture_output=True,
        text=True,
        check=False,
    )
    return done.returncode == 0, time.perf_counter() - started


def imports_the_copy(copy: Path) -> bool:
    """Whether ``python -m`` in ``copy`` imports the copy's package, not the installed one."""
    probe = subprocess.run(
        [
            sys.executable,
            "-c",
            "import correx_tools.core.lifecycle.reducer as m; print(m.__file__)",
        ],
        cwd=copy,
        capture_output=True,
        text=True,
        check=True,
    )
    return Path(probe.stdout.strip()).resolve().is_relative_to(copy.resolve())


def main(argv: list[str] | None = None) -> int:
    """Plant every mutant in turn and report which the tests killed."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--list", action="store_true", help="print the mutants and stop")
    parser.add_argument(
        "--skip-baseline",
        action="store_true",
        help="do not first check that the unmutated copy passes (when the caller just ran it)",
    )
    parser.add_argument(
        "--mutants",
        type=_numbers,
        default=range(1, len(MUTANTS) + 1),
        metavar="N,N,...",
        help="plant only these mutants, numbered from 1 as --list gives them (default: all)",
    )
    args = parser.parse_args(argv)
    if args.list:
        for number, mutant in enumerate(MUTANTS, 1):
            print(f"{number}. {mutant.path}: {mutant.name}")
        return 0
    chosen = [(number, MUTANTS[number - 1]) for number in args.mutants]
    with tempfile.TemporaryDirectory(prefix="mutants-") as scratch:
        base = Path(scratch) / "base"
        copy_project(base)
        if not imports_the_copy(base):
            print("error: the copy's package is not the one imported", file=sys.stderr)
            return 2
        if not args.skip_baseline:
            passed, seconds = run_tests(base)
            print(f"baseline (no mutant): {'passed' if passed else 'FAILED'} in {seconds:.1f} s")
            if not passed:
                return 2
        survivors = []
        for number, mutant in chosen:
            copy = Path(scratch) / f"mutant-{number}"
            shutil.copytree(base, copy)
            plant(copy, mutant)
            passed, seconds = run_tests(copy)
            verdict = "SURVIVED" if passed else "killed"
            print(f"mutant {number} ({mutant.name}): {verdict} in {seconds:.1f} s", flush=True)
            if passed:
                survivors.append(mutant.name)
            shutil.rmtree(copy)
    print(f"{len(chosen) - len(survivors)} of {len(chosen)} mutants killed")
    return 1 if survivors else 0


def _numbers(text: str) -> list[int]:
    try:
        numbers = [int(part) for part in text.split(",")]
    except ValueError:
        numbers = []
    if not numbers or not all(1 <= n <= len(MUTANTS) for n in numbers):
        raise argparse.ArgumentTypeError(f"{text!r}: give numbers from 1 to {len(MUTANTS)}")
    return numbers


if __name__ == "__main__":
    sys.exit(main())
