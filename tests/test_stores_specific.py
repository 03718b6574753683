"""What only one kind of store can get wrong: files reopened, damaged or torn."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from correx_tools import (
    EventDecodeError,
    EventReplayer,
    JsonlEventLog,
    SessionId,
    SQLiteEventStore,
    StoreReadError,
    ToolProjector,
)

from .strategies import completed, requested, started

S1 = SessionId("session-1")


def write_log(path: Path, count: int = 3) -> JsonlEventLog:
    log = JsonlEventLog(path)
    for i in range(count):
        log.append(
            S1, [requested(f"i{i}"), started(f"i{i}"), completed(f"i{i}")], expected_sequence=3 * i
        ).unwrap()
    return log


def test_a_sqlite_file_reopens_with_everything_in_it(tmp_path: Path) -> None:
    path = tmp_path / "e.sqlite"
    with SQLiteEventStore(path) as store:
        written = store.append(S1, [requested("a"), started("a")], expected_sequence=0).unwrap()
    with SQLiteEventStore(path) as again:
        assert list(again.read(S1)) == list(written)
        assert again.append(S1, [requested("a")], expected_sequence=2).failure().other_session == S1
        assert again.append(S1, [completed("a")], expected_sequence=2).unwrap()[0].sequence == 3
    connection = sqlite3.connect(path)
    assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_a_damaged_sqlite_row_names_the_session_and_sequence(tmp_path: Path) -> None:
    path = tmp_path / "e.sqlite"
    with SQLiteEventStore(path) as store:
        store.append(S1, [requested("a"), started("a")], expected_sequence=0).unwrap()
    connection = sqlite3.connect(path)
    connection.execute("UPDATE events SET data = '{\"invocation_id\": 1}' WHERE sequence = 2")
    connection.commit()
    with SQLiteEventStore(path) as store:
        error = EventReplayer(store).replay(S1, ToolProjector()).failure()
    assert error.sequence == 2
    assert isinstance(error.cause, EventDecodeError)
    assert "sequence 2" in str(error.cause)
    assert "invocation_id" in error.message


def test_a_jsonl_log_reopens_and_continues(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    write_log(path)
    again = JsonlEventLog(path)
    assert again.append(S1, [requested("x")], expected_sequence=9).unwrap()[0].sequence == 10
    assert again.append(S1, [requested("i0")], expected_sequence=10).failure().other_session == S1
    assert len(path.read_bytes().splitlines()) == 10


def test_two_log_objects_on_one_file_see_each_others_appends(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    first, second = JsonlEventLog(path), JsonlEventLog(path)
    first.append(S1, [requested("a")], expected_sequence=0).unwrap()
    assert second.append(S1, [started("a")], expected_sequence=0).failure().kind.value == "conflict"
    assert second.append(S1, [started("a")], expected_sequence=1).unwrap()[0].sequence == 2


# Cutting 1 byte takes only the newline: the last line is still a whole event, and is
# kept (tests/test_log_damage.py). Two bytes or more leave a line that is not an event.
@pytest.mark.parametrize("cut", [2, 10, 50])
def test_a_torn_final_line_fails_strict_and_is_dropped_lenient(tmp_path: Path, cut: int) -> None:
    path = tmp_path / "e.jsonl"
    write_log(path)
    data = path.read_bytes()
    path.write_bytes(data[:-cut])  # the last line loses its newline and more
    log = JsonlEventLog(path)
    error = EventReplayer(log).replay(S1, ToolProjector()).failure()
    assert error.sequence == 9
    assert isinstance(error.cause, EventDecodeError)
    assert error.cause.line == 9
    assert "torn" in error.cause.message
    assert str(path) in error.message
    lenient = EventReplayer(log).replay(S1, ToolProjector(), strict=False).unwrap()
    assert lenient.last_sequence == 8
    # The next append cuts the torn tail first: the log is whole again.
    log.append(S1, [completed("i2")], expected_sequence=8).unwrap()
    assert EventReplayer(log).replay(S1, ToolProjector()).unwrap().last_sequence == 9


@pytest.mark.parametrize(
    ("damage", "words"),
    [
        (lambda line: b"{not json\n", "invalid JSON"),
        (lambda line: line.replace(b'"sequence":2', b'"sequence":3'), "checksum"),
        (lambda line: b'{"type":"x"}\n', "envelope lacks"),
        (lambda line: line.replace(b"started", b"starteD"), "checksum"),
        (lambda line: b'{"a":1,"a":2}\n', "duplicate key"),
        (lambda line: b'{"a":NaN}\n', "NaN"),
    ],
)
def test_any_other_damage_is_an_error_in_both_modes_naming_the_line(
    tmp_path: Path, damage: object, words: str
) -> None:
    path = tmp_path / "e.jsonl"
    write_log(path)
    lines = path.read_bytes().splitlines(keepends=True)
    lines[1] = damage(lines[1])  # type: ignore[operator]
    path.write_bytes(b"".join(lines))
    for strict in (True, False):
        error = (
            EventReplayer(JsonlEventLog(path)).replay(S1, ToolProjector(), strict=strict).failure()
        )
        assert error.sequence == 2
        assert error.cause.line == 2  # type: ignore[attr-defined]
        assert words in error.message


def test_a_line_without_a_checksum_is_accepted(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    write_log(path, count=1)
    lines = path.read_bytes().splitlines(keepends=True)
    import re  # noqa: PLC0415 - only here

    lines[0] = re.sub(rb'"crc32":\d+,', b"", lines[0])
    path.write_bytes(b"".join(lines))
    assert (
        EventReplayer(JsonlEventLog(path)).replay(S1, ToolProjector()).unwrap().last_sequence == 3
    )


def test_an_oversized_line_is_rejected_without_reading_it_whole(tmp_path: Path) -> None:
    path = tmp_path / "e.jsonl"
    write_log(path, count=1)
    with path.open("ab") as handle:
        handle.write(b'{"pad":"' + b"x" * (3 << 20) + b'"}\n')
    with pytest.raises(StoreReadError, match="over the limit") as caught:
        list(JsonlEventLog(path).read(S1))
    assert caught.value.error.line == 4
