"""Writers killed with SIGKILL at random moments: every acknowledged append survives.

After each kill the store is opened again and checked: every append that
returned success is there with the body it was given, sequences run 1..n
without a gap, no sequence has two bodies, SQLite's integrity check passes,
and the next writer appends from the last sequence on.

A PostgreSQL writer's server process outlives its client: a COMMIT the client
sent just before it died still lands, unacknowledged. That is allowed (only
acknowledged appends must be there), so each PostgreSQL check first waits
until the server has closed the dead writer's connection; otherwise the
stored sequence could grow between two reads of the check.
"""

from __future__ import annotations

import json
import os
import random
import signal
import sqlite3
import subprocess
import sys
import time
from collections import Counter
from pathlib import Path

import pytest

from correx_tools import EventReplayer, SessionId, ToolProjector
from correx_tools.shell.stores.codec.lines import decode_line
from correx_tools.shell.stores.postgres.layout import id_key

from .crash_writer import event_for, open_store

ROOT = Path(__file__).resolve().parent.parent
WRITER = ROOT / "tests" / "crash_writer.py"
SESSION = SessionId("crash-session")


def where_for(kind: str, tmp_path: Path, request: pytest.FixtureRequest) -> str:
    match kind:
        case "sqlite":
            return str(tmp_path / "events.sqlite")
        case "jsonl":
            return str(tmp_path / "events.jsonl")
        case _:
            dsn = request.getfixturevalue("postgres_dsn")
            return f"{dsn}\t{request.getfixturevalue('postgres_schema')}"


def writer_where(kind: str, where: str) -> str:
    """Where the writer opens the store: PostgreSQL writers carry a name to wait on."""
    if kind != "postgres":
        return where
    from psycopg.conninfo import make_conninfo  # noqa: PLC0415 - PostgreSQL only

    dsn, schema = where.split("\t")
    return f"{make_conninfo(dsn, application_name=writer_name(schema))}\t{schema}"


def writer_name(schema: str) -> str:
    return f"crash-writer-{schema}"


def wait_for_dead_connections(kind: str, where: str) -> None:
    """Return once the server has let go of every killed writer's connection."""
    if kind != "postgres":
        return
    import psycopg  # noqa: PLC0415 - PostgreSQL only

    dsn, schema = where.split("\t")
    deadline = time.monotonic() + 30
    with psycopg.connect(dsn, autocommit=True) as connection:
        while True:
            row = connection.execute(
                "SELECT count(*) FROM pg_stat_activity WHERE application_name = %s",
                (writer_name(schema),),
            ).fetchone()
            if row == (0,):
                return
            assert time.monotonic() < deadline, "a killed writer's connection stayed open"
            time.sleep(0.01)


def bodies_per_sequence(kind: str, where: str) -> Counter[int]:
    """How many stored bodies each sequence of the session has, read under the store."""
    match kind:
        case "sqlite":
            with sqlite3.connect(where) as connection:
                assert connection.execute("PRAGMA integrity_check").fetchone() == ("ok",)
                rows = connection.execute(
                    "SELECT sequence FROM events WHERE session_id = ?", (SESSION,)
                ).fetchall()
            connection.close()
        case "jsonl":
            lines = Path(where).read_bytes().split(b"\n")
            # Only the final piece may be unterminated (an append cut short); the rest decode.
            rows = [(decode_line(line + b"\n").sequence,) for line in lines[:-1]]
        case _:
            import psycopg  # noqa: PLC0415 - PostgreSQL only

            dsn, schema = where.split("\t")
            with psycopg.connect(dsn) as connection:
                rows = connection.execute(
                    f'SELECT sequence FROM "{schema}".correx_events WHERE session_key = %s',
                    (id_key(SESSION),),
                ).fetchall()
    return Counter(row[0] for row in rows)


def check_store(kind: str, where: str, acknowledged: int) -> int:
    """Check everything the module docstring promises; the last stored sequence."""
    counts = bodies_per_sequence(kind, where)
    assert all(count == 1 for count in counts.values()), "a sequence with two bodies"
    last = max(counts, default=0)
    assert sorted(counts) == list(range(1, last + 1)), "a gap in the sequences"
    assert last >= acknowledged, f"acknowledged {acknowledged}, stored only {last}"
    with open_store(kind, where) as store:
        events = list(store.read(SESSION)) if kind != "jsonl" else None
        replay = EventReplayer(store).replay(SESSION, ToolProjector(), strict=False).unwrap()
    assert replay.last_sequence == last
    assert len(replay.state) == last
    if events is not None:
        assert [stored.event for stored in events] == [event_for(n) for n in range(1, last + 1)]
    else:
        records = list(replay.state.records())
        assert [r.request for r in records] == [event_for(n).request for n in range(1, last + 1)]
    return last


def kill_writers(kind: str, where: str, kills: int) -> list[int]:
    """Start and SIGKILL a writer ``kills`` times; the acknowledged appends of each round."""
    chance = random.Random(f"{kind}-{kills}")
    last, acked_per_round = 0, []
    for round_number in range(kills):
        writer = subprocess.Popen(
            [
                sys.executable,
                str(WRITER),
                kind,
                writer_where(kind, where),
                SESSION,
                str(last),
                str(round_number),
            ],
            stdout=subprocess.PIPE,
            text=True,
        )
        assert writer.stdout is not None
        assert writer.stdout.readline() == "ready\n"
        # Kill at a random moment once the writer is in its loop (it may first
        # have to read a large log through), mostly in the middle of an append.
        first = writer.stdout.readline()
        time.sleep(chance.uniform(0.0, 0.1))
        os.kill(writer.pid, signal.SIGKILL)
        rest, _ = writer.communicate(timeout=60)
        output = first + rest
        assert writer.returncode == -signal.SIGKILL, output
        assert "error" not in output, output
        acks = [int(line.split()[1]) for line in output.splitlines() if line.startswith("ack ")]
        acked_per_round.append(len(acks))
        wait_for_dead_connections(kind, where)
        last = check_store(kind, where, max(acks, default=last))
    # Appending continues from the last sequence after the final kill.
    with open_store(kind, where) as store:
        written = store.append(SESSION, [event_for(last + 1)], expected_sequence=last).unwrap()
    assert written[0].sequence == last + 1
    return acked_per_round


def run_battery(kind: str, kills: int, tmp_path: Path, request: pytest.FixtureRequest) -> None:
    acked = kill_writers(kind, where_for(kind, tmp_path, request), kills)
    # Every writer was killed mid-stream, after appends had returned: the test bites.
    assert len(acked) == kills
    assert all(count > 0 for count in acked), json.dumps(acked)


# The quick run kills one store's writer 8 times, to keep the README's command within its
# time; the slow run (CI runs it) kills each kind's 40 times, below.
def test_a_writer_killed_8_times_loses_no_acknowledged_append(
    tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    run_battery("sqlite", 8, tmp_path, request)


@pytest.mark.slow
@pytest.mark.parametrize("kind", ["sqlite", "jsonl", "postgres"])
def test_a_writer_killed_40_times_loses_no_acknowledged_append(
    kind: str, tmp_path: Path, request: pytest.FixtureRequest
) -> None:
    run_battery(kind, 40, tmp_path, request)
