"""A writer for the crash tests: appends until it is killed, acknowledging each success.

``python tests/crash_writer.py KIND WHERE SESSION AFTER SEED`` opens the store
(``sqlite``/``jsonl``: WHERE is a file; ``postgres``: WHERE is ``DSN SCHEMA``
joined by a tab), prints ``ready``, then appends batches of 1 to 20 events
after sequence AFTER and prints ``ack N`` (flushed) once the append that
wrote sequence N has returned success. The content of every event is a
function of its sequence (:func:`event_for`), so the test can check bodies.
"""

from __future__ import annotations

import random
import sys

from returns.result import Failure

from correx_tools import (
    InvocationId,
    JsonlEventLog,
    PostgresEventStore,
    SessionId,
    SQLiteEventStore,
    Tier,
    ToolInvocationRequestedEvent,
    ToolRequest,
)
from correx_tools.shell.stores.port import EventStore


def event_for(sequence: int) -> ToolInvocationRequestedEvent:
    """The event the writer puts at ``sequence``: up to 4 kB, so some writes take a while."""
    arguments = {"path": f"src/file_{sequence}.py", "content": "x" * (sequence * 7919 % 4_000)}
    return ToolInvocationRequestedEvent(
        invocation_id=InvocationId(f"inv-{sequence}"),
        tool_name="write_file",
        tier=Tier.CONFIRM,
        request=ToolRequest(tool_name="write_file", arguments=arguments),
    )


def open_store(kind: str, where: str) -> EventStore:
    """The store a crash test names."""
    match kind:
        case "sqlite":
            return SQLiteEventStore(where)
        case "jsonl":
            return JsonlEventLog(where)
        case "postgres":
            dsn, schema = where.split("\t")
            return PostgresEventStore(dsn, schema=schema)
        case _:
            raise SystemExit(f"unknown store kind {kind!r}")


def main(kind: str, where: str, session: str, after: str, seed: str) -> int:
    """Append until killed; ``ack N`` after each success."""
    store = open_store(kind, where)
    chance = random.Random(int(seed))
    last = int(after)
    print("ready", flush=True)
    while True:
        size = chance.randint(1, 20)
        events = [event_for(sequence) for sequence in range(last + 1, last + size + 1)]
        result = store.append(SessionId(session), events, expected_sequence=last)
        if isinstance(result, Failure):
            print(f"error {result.failure()}", flush=True)
            return 3
        last += size
        print(f"ack {last}", flush=True)


if __name__ == "__main__":
    sys.exit(main(*sys.argv[1:]))
