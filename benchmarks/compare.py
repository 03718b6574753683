"""``compare`` on two large sessions of one task: its time against reading both, its peak
memory.

The two sessions make the same calls (each a call of one of a few tools on one
of a thousand files), except that the second changes one call in every ten
thousand and adds one after every twenty thousand: two runs of one task.
The issue's targets: at most twice the time it takes to read both sessions'
entries (the command's start-up subtracted), and at most 200 MB resident.
"""

from __future__ import annotations

import time
from datetime import timedelta
from pathlib import Path

from correx_tools import (
    InvocationId,
    SessionId,
    SQLiteEventStore,
    StoredEvent,
    Tier,
    ToolExecutionCompletedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolReceipt,
    ToolRequest,
)
from correx_tools.shell.replay.replayer import EventReplayer
from correx_tools.shell.replay.repository import DefaultToolRepository

from .commands import measured
from .sessions import START
from .stored import append_in_batches
from .table import Row, at_most

PEAK_MEGABYTES = 200
TOOLS = ("read_file", "run_tests", "search_code", "write_file")
RECEIPT = ToolReceipt(output={"ok": True}, exit_code=0)


def run_events(name: str, events: int, *, other: bool) -> list[StoredEvent]:
    """About ``events`` events of one run (three a call); ``other``: the second run."""
    payloads: list[object] = []
    number = 0
    while len(payloads) < events:
        tool = TOOLS[number % len(TOOLS)]
        target = f"src/module_{(number * 7919) % 1000}.py"
        if other and number % 10_000 == 5_000:
            target = "src/elsewhere.py"
        calls = [(f"{name}-{number}", tool, target)]
        if other and number % 20_000 == 19_999:
            calls.append((f"{name}-{number}-extra", "run_tests", "tests/"))
        for invocation, tool_name, path in calls:
            call = InvocationId(invocation)
            request = ToolRequest(tool_name=tool_name, arguments={"path": path})
            payloads += [
                ToolInvocationRequestedEvent(
                    invocation_id=call, tool_name=tool_name, tier=Tier.AUTO, request=request
                ),
                ToolExecutionStartedEvent(invocation_id=call),
                ToolExecutionCompletedEvent(invocation_id=call, receipt=RECEIPT),
            ]
        number += 1
    step = timedelta(milliseconds=1)
    return [
        StoredEvent(session_id=SessionId(name), sequence=s, recorded_at=START + s * step, event=p)
        for s, p in enumerate(payloads, start=1)
    ]


def read_both(path: Path) -> float:
    """Seconds to read both sessions' entries through one view each: what compare must read."""
    with SQLiteEventStore(path, read_only=True) as store:
        repository = DefaultToolRepository(EventReplayer(store))
        started = time.perf_counter()
        for name in ("run-a", "run-b"):
            with repository.view(SessionId(name)) as view:
                for _ in view.entries_through().unwrap():
                    pass
        return time.perf_counter() - started


def compare_rows(events: int, repeat: int, directory: Path) -> list[Row]:
    """The time and the peak memory of ``compare`` on two sessions of ``events`` events."""
    path = directory / "compare.sqlite"
    with SQLiteEventStore(path) as store:
        append_in_batches(store, run_events("run-a", events, other=False))
        append_in_batches(store, run_events("run-b", events, other=True))
    reading = min(read_both(path) for _ in range(repeat))
    start_up, _ = measured(["--version"], repeat)
    seconds, peak = measured(["compare", str(path), "run-a", "run-b", "--json"], repeat)
    answer = max(seconds - start_up, 0.0)
    size = f"2 x {events:,}"
    return [
        at_most(
            "compare, two sessions of one task",
            size,
            f"{answer:.2f} s",
            f"{reading:.2f} s (reading both)",
            ratio=answer / reading,
            limit=2.0,
        ),
        Row(
            "compare, two sessions, resident memory",
            size,
            f"{peak:.0f} MB",
            "-",
            None,
            f"<= {PEAK_MEGABYTES} MB",
            peak <= PEAK_MEGABYTES,
        ),
    ]
