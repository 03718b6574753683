"""``correx-tools audit`` over a large session: its time against reading the session once,
and its resident memory.

A fleet is a folder of 1,000 agents' transcripts (`sources.agent_folder`) audited through
the transcript cache: the first run fills the cache, held to the transcript import
target against json.loads of every line; the second, nothing changed, is held to
auditing the cache's store directly (what looking at 1,000 files adds), at most
`FOLDER_LOOK` times it.

The session is an agent's ordinary work (reads, edits, shell commands, now and then a web
fetch whose page is tracked as untrusted), with a planted denied command every ten
thousand calls. The issue asks for the audit in the time to read the session once (every
event decoded), and the row holds it to that: 1x, with the machine's cores auditing its
parts (the command's default), the one-process pass shown beside it; its peak must not
grow with the session (bounded memory; the largest of its processes). The session is written to the store as it is made, a batch at a time,
so the benchmark holds no more of it than the audit does.

A huge line is one Claude Code transcript whose one output is 100 MB (beside a denied
command): its peak is held to the 200 MB issue 57 sets, a small multiple of the most an
event holds, whatever the output's size; its time (each run filling a cache of its own) is
shown against reading the file's lines with json.loads.
"""

from __future__ import annotations

import json
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
from .sources import read_folder
from .stored import BATCH
from .table import Row, at_most

PEAK_MEGABYTES = 200
FOLDER_LOOK = 1.2
"""The second audit of an unchanged folder, at most this many times auditing its cache: the
look at the files adds a ``stat`` each, a tenth of a second for 1,000."""
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
    alone, _ = measured(["audit", str(path), "--json", "--workers", "1"], repeat, ok=(1,))
    answer = max(seconds - start_up, 0.0)
    one = max(alone - start_up, 0.0)
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
            "audit, one session, one process (--workers 1)",
            size,
            f"{one:.2f} s",
            f"{reading:.2f} s (reading it once)",
            one / reading,
            "-",
            None,
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


def folder_rows(files: int, size: int, repeat: int, directory: Path) -> list[Row]:
    """``audit FOLDER`` over ``files`` transcripts of about ``size`` bytes: the first run
    (the cache filled) and the second (nothing changed), with the peak of each."""
    folder, _, total, floor = read_folder(directory / "fleet", files, size)
    cache = directory / "fleet-cache.sqlite"
    start_up, _ = measured(["--version"], repeat)
    audit = ["audit", str(folder), "--json", "--cache", str(cache)]
    first, first_peak = measured(audit, 1, ok=(0, 1))
    second, second_peak = measured(audit, repeat, ok=(0, 1))
    direct, _ = measured(["audit", str(cache), "--json"], repeat, ok=(0, 1))
    first, second = max(first - start_up, 0.0), max(second - start_up, 0.0)
    direct = max(direct - start_up, 1e-3)
    label = f"{files:,} files, {total / 1e6:.0f} MB"
    return [
        Row(
            "audit FOLDER, first run (the cache filled)",
            label,
            f"{first:.1f} s, {first_peak:.0f} MB",
            f"{floor:.1f} s reading the lines + json.loads",
            first / floor,
            "-",
            None,
        ),
        at_most(
            "audit FOLDER, second run, nothing changed",
            label,
            f"{second:.2f} s, {second_peak:.0f} MB",
            f"{direct:.2f} s auditing the cache itself",
            ratio=second / direct,
            limit=FOLDER_LOOK,
        ),
    ]


def huge_line_rows(megabytes: int, repeat: int, directory: Path) -> list[Row]:
    """``audit`` of one transcript whose one output is ``megabytes`` MB: its time and peak."""
    path = directory / "huge-line.jsonl"
    _huge_transcript(path, megabytes)
    started = time.perf_counter()
    with path.open("rb") as file:
        for line in file:
            json.loads(line)
    floor = time.perf_counter() - started
    start_up, _ = measured(["--version"], repeat)
    seconds, peak = measured(["audit", str(path), "--json", "--no-cache"], repeat, ok=(1,))
    answer = max(seconds - start_up, 0.0)
    return [
        Row(
            "audit, one transcript with a huge output, resident memory",
            f"{megabytes} MB",
            f"{answer:.2f} s, peak {peak:.0f} MB",
            f"{floor:.2f} s reading the lines + json.loads",
            answer / floor,
            f"<= {PEAK_MEGABYTES} MB",
            peak <= PEAK_MEGABYTES,
        )
    ]


def _huge_transcript(path: Path, megabytes: int) -> None:
    """A Claude Code session of two shell calls: ``rm -rf /``, answered ``done``, and a
    ``cat`` whose output is ``megabytes`` MB of log lines (not ASCII only)."""
    base = {"sessionId": "huge-line", "cwd": "/home/dev/app", "version": "2.1.38"}
    line = "12:00:01 INFO served /api/items in 3 ms, résumé ok\n"
    output = line * (megabytes * 1_000_000 // len(line.encode()))
    calls = (("rm -rf /", "done"), ("cat logs/app.log", output))
    with path.open("w", encoding="utf-8") as file:
        for number, (command, result) in enumerate(calls):
            use, at = f"toolu_{number}", f"2026-11-20T10:00:0{number}Z"
            asked = {"type": "tool_use", "id": use, "name": "Bash", "input": {"command": command}}
            answered = {"type": "tool_result", "tool_use_id": use, "content": result}
            for role, block in (("assistant", asked), ("user", answered)):
                record = {**base, "type": role, "uuid": f"{role}{number}", "timestamp": at,
                          "message": {"role": role, "content": [block]}}  # fmt: skip
                file.write(json.dumps(record, ensure_ascii=False) + "\n")
