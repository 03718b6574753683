"""``stats``, ``report`` and ``export`` over a 100k-event session hold no whole session.

Each command runs as a real process; its peak resident size is read by a small
Python that only starts it and waits (``RUSAGE_CHILDREN``), and held to a few
tens of megabytes over the command's own start-up. Holding the session's
records, entries or spans costs more than that at this size: before they were
streamed, 42, 58 and 597 MB over start-up.
"""

from __future__ import annotations

import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from benchmarks.sessions import session
from correx_tools import SQLiteEventStore

EVENTS = 100_000

_LAUNCHER = """
import resource, subprocess, sys
subprocess.run(sys.argv[1:], check=True, stdout=subprocess.DEVNULL)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss)
"""


def peak_megabytes(*arguments: str) -> float:
    """The peak resident size of one run of the command, in MB."""
    launched = subprocess.run(
        [sys.executable, "-c", _LAUNCHER, sys.executable, "-m", "correx_tools", *arguments],
        capture_output=True,
        text=True,
        check=True,
        timeout=600,
    )
    return int(launched.stdout) / 1024  # kilobytes on Linux


@pytest.mark.slow
def test_whole_session_commands_stay_within_a_few_megabytes_of_start_up(tmp_path: Path) -> None:
    source = tmp_path / "s.sqlite"
    events = session(EVENTS)
    with SQLiteEventStore(source) as store:
        for start in range(0, EVENTS, 20_000):
            store.import_events(events[start : start + 20_000]).unwrap()
    # The command's own start-up is the same command over a small session: each command
    # imports only what it needs, so `--version` is no measure of what `report` loads.
    small = tmp_path / "small.sqlite"
    with SQLiteEventStore(small) as store:
        store.import_events(session(300)).unwrap()
    name = events[0].session_id
    commands: dict[str, Callable[[Path], tuple[str, ...]]] = {
        "stats": lambda into: ("--json",),
        "report": lambda into: ("-o", str(into / "r.html")),
        "export": lambda into: ("-o", str(into / "t.jsonl")),
    }
    (tmp_path / "small").mkdir()
    over = {
        command: peak_megabytes(command, str(source), name, *rest(tmp_path))
        - peak_megabytes(command, str(small), name, *rest(tmp_path / "small"))
        for command, rest in commands.items()
    }
    assert over["stats"] <= 20, over
    assert over["report"] <= 30, over
    assert over["export"] <= 25, over
    assert (tmp_path / "t.jsonl").read_text().count("\n") == -(-(EVENTS // 3 + 2) // 1_000)
