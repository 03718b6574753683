"""``export -o FILE`` killed at random points: the file is whole or not there, never partial.

The command writes a hidden partial file beside the target and renames it into
place when it is complete; SIGKILL gives it no chance to clean up, so what is
held here is only the name asked for.
"""

from __future__ import annotations

import json
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

from correx_tools import SQLiteEventStore

from .strategies import completed, requested, started, stored

CALLS = 12_000


def big_session(path: Path) -> Path:
    events = [
        e for n in range(CALLS) for e in (requested(f"c{n}"), started(f"c{n}"), completed(f"c{n}"))
    ]
    with SQLiteEventStore(path) as store:
        store.import_events(stored(events)).unwrap()
    return path


def spans_in(path: Path) -> int:
    """The spans of a whole file (every line a whole request)."""
    count = 0
    with path.open(encoding="utf-8") as lines:
        for line in lines:
            assert line.endswith("\n")
            request = json.loads(line)
            count += len(request["resourceSpans"][0]["scopeSpans"][0]["spans"])
    return count


def test_a_killed_export_leaves_the_old_file_or_the_whole_new_one(tmp_path: Path) -> None:
    source = big_session(tmp_path / "s.sqlite")
    target = tmp_path / "trace.jsonl"
    command = [sys.executable, "-m", "correx_tools", "export", str(source), "session-1"]
    started_at = time.perf_counter()
    subprocess.run([*command, "-o", str(target)], check=True, capture_output=True)
    whole = time.perf_counter() - started_at
    assert spans_in(target) == CALLS + 1
    target.write_text("the file before\n")
    rng = random.Random(30)
    outcomes = set()
    for _ in range(6):
        process = subprocess.Popen(
            [*command, "-o", str(target)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL
        )
        time.sleep(rng.uniform(0.0, whole * 1.2))
        os.kill(process.pid, signal.SIGKILL)
        process.wait()
        text = target.read_text(encoding="utf-8")
        if text == "the file before\n":
            outcomes.add("old")
        else:
            assert spans_in(target) == CALLS + 1
            outcomes.add("new")
            target.write_text("the file before\n")
    assert "old" in outcomes  # some kill came before the rename
    # What a killed run may leave is its hidden partial file, never under the name asked for.
    assert all(p.name.startswith(".trace.jsonl.") for p in tmp_path.glob(".*"))
