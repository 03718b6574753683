"""A JSONL log shared by processes: readers beside a writer, a file replaced, a damaged one.

A reader sees the log as it stood when no writer held it (never half an append,
nor the first lines of a batch without the rest); a writer that finds another
file under the log's name reads it anew; a damaged log refuses an append with
an error value, not an exception.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from correx_tools import AppendErrorKind, JsonlEventLog, SessionId, StoredEvent

from .strategies import requested, started, stored

S = SessionId("s")
ROOT = Path(__file__).resolve().parent.parent

_WRITER = """
import sys
from correx_tools import JsonlEventLog, SessionId
from tests.strategies import requested, started
log, batches = JsonlEventLog(sys.argv[1]), int(sys.argv[2])
big = "x" * 300_000  # an append of about a megabyte: many writes of the pipe's size
for n in range(batches):
    calls = [f"c{n}-{k}" for k in range(3)]
    log.append(SessionId("s"), [requested(c, note=big) for c in calls], expected_sequence=3 * n)
"""


def test_a_reader_beside_a_writer_sees_only_whole_batches(tmp_path: Path) -> None:
    path = tmp_path / "shared.jsonl"
    path.touch()
    writer = subprocess.Popen(
        [sys.executable, "-c", _WRITER, str(path), "40"],
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    seen, reads = set(), 0
    try:
        while writer.poll() is None or reads == 0:
            count = sum(1 for _ in JsonlEventLog(path).read(S))  # never a StoreReadError
            assert count % 3 == 0, count  # a batch whole or not at all
            seen.add(count)
            reads += 1
    finally:
        assert writer.wait(timeout=120) == 0
    assert sum(1 for _ in JsonlEventLog(path).read(S)) == 120
    assert len(seen) >= 2  # the reader did read while the writer wrote


def test_a_writer_reads_anew_a_file_that_replaced_the_log(tmp_path: Path) -> None:
    path = tmp_path / "rotated.jsonl"
    first = JsonlEventLog(path)
    first.append(S, [requested("a1"), requested("a2")], expected_sequence=0).unwrap()
    path.unlink()  # rotated away: another writer starts a new log under the same name
    other = JsonlEventLog(path)
    other.append(S, [requested("x1"), requested("x2"), requested("x3")], expected_sequence=0)
    refused = first.append(S, [requested("x1")], expected_sequence=3).failure()
    assert refused.kind is AppendErrorKind.DUPLICATE_INVOCATION
    done = first.append(S, [started("x1")], expected_sequence=3).unwrap()
    assert [e.sequence for e in done] == [4]
    assert [e.sequence for e in JsonlEventLog(path).read(S)] == [1, 2, 3, 4]


def test_an_append_to_a_damaged_log_is_an_error_value(tmp_path: Path) -> None:
    path = tmp_path / "damaged.jsonl"
    path.write_text('{"not": "an envelope"}\n', encoding="utf-8")
    log = JsonlEventLog(path)
    other = SessionId("other")
    for written in (
        log.append(S, [requested("a")], expected_sequence=0),
        log.import_events([*stored_one(other)]),
    ):
        error = written.failure()
        assert error.kind is AppendErrorKind.DAMAGED
        assert "damaged.jsonl:1" in error.message and "correx-tools verify" in error.message
    assert path.read_text(encoding="utf-8") == '{"not": "an envelope"}\n'  # nothing written


def stored_one(session: SessionId) -> list[StoredEvent]:
    return stored([requested("b")], session=session)
