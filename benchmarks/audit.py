"""``correx-tools audit`` over a large session: its time against reading the session once,
and its resident memory.

The session is an agent's ordinary work (reads, edits, shell commands, now and then a web
fetch whose page is tracked as untrusted), with a planted denied command every ten
thousand calls. The issue asks for the audit in the time to read the session once (every
event decoded), and the row holds it to that: 1x; its peak must not grow with the session
(bounded memory). The session is written to the store as it is made, a batch at a time,
so the benchmark holds no more of it than the audit does.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path

from correx_tools import (
    InvocationId,
    SessionId,
    SQLiteEventStore,
    Tier,
    ToolExecutionCompletedEvent,
    ToolInvocationRequestedEvent,
    ToolReceipt,
    ToolRequest,
)

from .commands import measured
from .stored import BATCH
from .table import Row, at_most

PEAK_MEGABYTES = 200
PAGE = "\n".join(f"Line {n} of the fetched documentation page, some words." for n in range(40))


def _call(number: int) -> tuple[str, dict[str, object], object]:
    """The tool, arguments and output of call ``number``."""
    match number % 5:
        case 0:
            return "Read", {"file_path": f"/home/dev/app/src/m{number % 997}.py"}, "x = 1\n" * 20
        case 1:
            edit = {"file_path": f"src/m{number % 997}.py", "old_string": "a", "new_string": "b"}
            return "Edit", edit, "ok"
        case 2:
            command = (
                "git push --force" if number % 10_000 == 2 else f"pytest -q tests/t{number}.py"
            )
            return "Bash", {"command": command}, "3 passed in 0.1s"
        case 3:
            return "Grep", {"pattern": "def main", "path": "src"}, "src/app.py:1:def main():"
        case _:
            if number % 100 == 4:
                return "WebFetch", {"url": f"https://docs.example.org/p{number}"}, PAGE
            return "Glob", {"pattern": "**/*.py"}, "src/app.py\nsrc/m1.py"


def audit_payloads(name: str, events: int) -> Iterator[list[object]]:
    """About ``events`` events of one session (two a call: requested, completed), in
    batches of `BATCH`."""
    payloads: list[object] = []
    number = made = 0
    while made < events:
        tool, arguments, output = _call(number)
        call = InvocationId(f"{name}-{number}")
        request = ToolRequest(tool_name=tool, arguments=arguments)
        payloads += [
            ToolInvocationRequestedEvent(
                invocation_id=call, tool_name=tool, tier=Tier.AUTO, request=request
            ),
            ToolExecutionCompletedEvent(
                invocation_id=call, receipt=ToolReceipt(output=output, exit_code=0)
            ),
        ]
        number += 1
        made += 2
        if len(payloads) >= BATCH:
            yield payloads
            payloads = []
    if payloads:
        yield payloads


def write_session(path: Path, name: str, events: int) -> None:
    """The session of `audit_payloads` appended to a new SQLite store, a batch at a time."""
    with SQLiteEventStore(path) as store:
        written = 0
        for batch in audit_payloads(name, events):
            store.append(SessionId(name), batch, expected_sequence=written).unwrap()
            written += len(batch)


def read_once(path: Path, name: str) -> float:
    """Seconds to read the session's events once, each decoded (what the audit must read)."""
    with SQLiteEventStore(path, read_only=True) as store:
        started = time.perf_counter()
        for stored in store.read(SessionId(name)):
            event = stored.event
            if isinstance(event, ToolInvocationRequestedEvent):
                _ = event.request.arguments
            elif isinstance(event, ToolExecutionCompletedEvent):
                _ = event.receipt.output
        return time.perf_counter() - started


def audit_rows(events: int, repeat: int, directory: Path) -> list[Row]:
    """The time and the peak memory of ``audit`` on one session of ``events`` events."""
    path = directory / "audit.sqlite"
    write_session(path, "audited", events)
    reading = min(read_once(path, "audited") for _ in range(repeat))
    start_up, _ = measured(["--version"], repeat)
    seconds, peak = measured(["audit", str(path), "--json"], repeat, ok=(1,))
    answer = max(seconds - start_up, 0.0)
    size = f"{events:,}"
    return [
        at_most(
            "audit, one session, the built-in policy",
            size,
            f"{answer:.2f} s",
            f"{reading:.2f} s (reading it once)",
            ratio=answer / reading,
            limit=1.0,
        ),
        Row(
            "audit, one session, resident memory",
            size,
            f"{peak:.0f} MB",
            "-",
            None,
            f"<= {PEAK_MEGABYTES} MB",
            peak <= PEAK_MEGABYTES,
        ),
    ]
