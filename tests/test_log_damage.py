"""A JSONL log cut short or damaged: nothing wrong is ever accepted silently.

A crash mid-write leaves an unterminated final line; strict replay fails
naming the line and the last good sequence, lenient replay returns exactly
the complete prefix. A final line that is a whole event whose newline is
missing or damaged is not torn: it is kept, and the next writer gives it its
newline back. Any other damage (one changed byte anywhere, a line
repeated with another body, a gap, lines out of order) is an error naming the
sequence in both modes.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from returns.result import Failure

from correx_tools import (
    DefaultToolReducer,
    EventDecodeError,
    EventReplayer,
    JsonlEventLog,
    SequenceError,
    SequenceErrorKind,
    SessionId,
    StoredEvent,
    ToolInvocationRecord,
    ToolProjector,
    ToolState,
)
from correx_tools.shell.stores.codec.encoding import encode_line

from .strategies import completed, failed, rejected, requested, started, stored

S1 = SessionId("session-1")
RECORDS = 60
"""Events in the log the quick tests damage: every kind of record, several times over (how
long the log is beyond that is not the point; each cut replays all of it twice)."""


def session_events(count: int = RECORDS) -> list[StoredEvent]:
    """``count`` events: invocations requested, started, then completed, failed or rejected."""
    events: list[object] = []
    endings = [completed, failed, rejected]
    for i in range(count // 3 + 1):
        events += [requested(f"inv-{i}", path=f"src/{i}.py"), started(f"inv-{i}")]
        events.append(endings[i % 3](f"inv-{i}"))
    return stored(events[:count], session=S1)


@pytest.fixture(scope="module")
def original() -> tuple[bytes, list[StoredEvent], list[list[ToolInvocationRecord]]]:
    """The log's bytes, its events, and the records after each prefix of k events."""
    return log_of(RECORDS)


def log_of(count: int) -> tuple[bytes, list[StoredEvent], list[list[ToolInvocationRecord]]]:
    """A log of ``count`` events: its bytes, its events, the records after each prefix."""
    events = session_events(count)
    data = b"".join(encode_line(event) for event in events)
    reducer, state = DefaultToolReducer(), ToolState.empty()
    prefixes = [list(state.records())]
    for event in events:
        state = reducer.reduce(state, event).unwrap()
        prefixes.append(list(state.records()))
    return data, events, prefixes


def replay_both(path: Path) -> tuple[object, object]:
    log = JsonlEventLog(path)
    replayer = EventReplayer(log)
    return (
        replayer.replay(S1, ToolProjector()),
        replayer.replay(S1, ToolProjector(), strict=False),
    )


def check_cut(
    path: Path, data: bytes, cut: int, prefixes: list[list[ToolInvocationRecord]]
) -> None:
    path.write_bytes(data[:cut])
    complete = data[:cut].count(b"\n")
    if data[cut : cut + 1] == b"\n":
        # Only the newline is missing: the last line is a whole event, and is kept.
        complete += 1
    strict, lenient = replay_both(path)
    # Lenient replay: exactly the complete lines, never more, never fewer.
    replay = lenient.unwrap()  # type: ignore[attr-defined]
    assert replay.last_sequence == complete
    assert list(replay.state.records()) == prefixes[complete]
    if cut == 0 or data[cut - 1 : cut] == b"\n" or data[cut : cut + 1] == b"\n":
        # Cut on a line boundary (or just before one): a shorter log, whole and valid.
        assert strict.unwrap().last_sequence == complete  # type: ignore[attr-defined]
        return
    error = strict.failure()  # type: ignore[attr-defined]
    assert isinstance(error.cause, EventDecodeError)
    assert error.cause.line == complete + 1
    assert error.sequence == complete + 1
    assert "torn" in error.message
    assert f"after sequence {complete}:" in error.message
    assert str(path) in error.message


def test_a_log_cut_at_every_byte_of_its_last_three_records(
    tmp_path: Path, original: tuple[bytes, list[StoredEvent], list[list[ToolInvocationRecord]]]
) -> None:
    data, _, prefixes = original
    start = sum(map(len, data.splitlines(keepends=True)[: RECORDS - 3]))
    assert data[start - 1 : start] == b"\n"
    path = tmp_path / "cut.jsonl"
    for cut in range(start, len(data) + 1):
        check_cut(path, data, cut, prefixes)


@pytest.mark.slow
def test_a_log_cut_at_every_byte_of_the_whole_file(tmp_path: Path) -> None:
    # 40 records (about 12,000 cuts, each replayed in both modes): every kind of record
    # and every position in one, several times over; each cut replays the whole log, so the
    # cost grows with the square of its length.
    data, _, prefixes = log_of(40)
    path = tmp_path / "cut.jsonl"
    for cut in range(len(data) + 1):
        check_cut(path, data, cut, prefixes)


def test_no_one_byte_change_anywhere_is_accepted_silently(
    tmp_path: Path, original: tuple[bytes, list[StoredEvent], list[list[ToolInvocationRecord]]]
) -> None:
    data, events, _ = original
    path = tmp_path / "changed.jsonl"
    chance = random.Random(1000)
    refused = final_newline = 0
    for _ in range(1000):
        position = chance.randrange(len(data))
        byte = chance.choice([b for b in range(256) if b != data[position]])
        path.write_bytes(data[:position] + bytes([byte]) + data[position + 1 :])
        strict, lenient = replay_both(path)
        if position == len(data) - 1:
            # The final newline belongs to no event: every event is read, in both modes.
            final_newline += 1
            assert list(JsonlEventLog(path).read(S1)) == events, byte
        elif not isinstance(strict, Failure):
            # Accepted: only if it reads back exactly what was written.
            assert list(JsonlEventLog(path).read(S1)) == events, (position, byte)
        else:
            refused += 1
        if not isinstance(lenient, Failure):
            assert lenient.unwrap().last_sequence == RECORDS, (position, byte)  # type: ignore[attr-defined]
    # A one-byte change to canonical JSON with a CRC-32 always changes what is read.
    assert refused == 1000 - final_newline


@pytest.mark.parametrize("byte", sorted(set(range(256)) - {ord("\n")}))
def test_a_damaged_final_newline_costs_no_acknowledged_event(
    tmp_path: Path,
    original: tuple[bytes, list[StoredEvent], list[list[ToolInvocationRecord]]],
    byte: int,
) -> None:
    data, events, _ = original
    path = tmp_path / "newline.jsonl"
    path.write_bytes(data[:-1] + bytes([byte]))
    for result in replay_both(path):
        assert result.unwrap().last_sequence == RECORDS  # type: ignore[attr-defined]
    # The next writer keeps the last event, gives it its newline back, and goes on after it.
    log = JsonlEventLog(path)
    log.append(S1, [requested("next")], expected_sequence=RECORDS).unwrap()
    assert list(JsonlEventLog(path).read(S1))[:RECORDS] == events
    assert path.read_bytes().startswith(data)
    assert path.read_bytes().count(b"\n") == RECORDS + 1


def test_a_missing_final_newline_is_added_back_by_the_next_writer(
    tmp_path: Path, original: tuple[bytes, list[StoredEvent], list[list[ToolInvocationRecord]]]
) -> None:
    data, events, _ = original
    path = tmp_path / "no-newline.jsonl"
    path.write_bytes(data[:-1])
    assert list(JsonlEventLog(path).read(S1)) == events
    JsonlEventLog(path).append(S1, [requested("next")], expected_sequence=RECORDS).unwrap()
    assert path.read_bytes().startswith(data)
    assert [e.sequence for e in JsonlEventLog(path).read(S1)] == list(range(1, RECORDS + 2))


def write_lines(path: Path, events: list[StoredEvent]) -> None:
    path.write_bytes(b"".join(encode_line(event) for event in events))


def test_an_exact_redelivered_line_is_skipped_in_both_modes(tmp_path: Path) -> None:
    events = session_events(6)
    path = tmp_path / "again.jsonl"
    write_lines(path, events[:3] + [events[2]] + events[3:])
    for result in replay_both(path):
        replay = result.unwrap()  # type: ignore[attr-defined]
        assert replay.last_sequence == 6
        assert replay.quarantined == ()
    # Read once by the store itself, so every reader (stats, the debugger's columns)
    # counts what the fold counts.
    assert list(JsonlEventLog(path).read(S1)) == events
    assert list(JsonlEventLog(path).read(S1, after=3)) == events[3:]


@pytest.mark.parametrize(
    ("arrange", "kind", "sequence", "words"),
    [
        # sequence 3 again, with another body
        (lambda e, other: e[:3] + [other] + e[3:], SequenceErrorKind.STALE, 3, "different body"),
        # sequence 4 missing
        (lambda e, other: e[:3] + e[4:], SequenceErrorKind.GAP, 5, "expected sequence 4, got 5"),
        # 5 before 4
        (lambda e, other: e[:3] + [e[4], e[3]] + e[5:], SequenceErrorKind.GAP, 5, "got 5"),
        # 2 again after 3
        (lambda e, other: e[:3] + [e[1]] + e[3:], SequenceErrorKind.STALE, 2, "already behind"),
    ],
)
def test_changed_duplicates_gaps_and_disorder_are_errors_in_both_modes(
    tmp_path: Path, arrange: object, kind: SequenceErrorKind, sequence: int, words: str
) -> None:
    events = session_events(6)
    other = stored([requested("someone-else")], start=3, session=S1)[0]
    path = tmp_path / "bad.jsonl"
    write_lines(path, arrange(events, other))  # type: ignore[operator]
    for result in replay_both(path):
        error = result.failure()  # type: ignore[attr-defined]
        assert isinstance(error.cause, SequenceError)
        assert error.cause.kind is kind
        assert error.sequence == sequence
        assert f"sequence {sequence}" in error.message
        assert words in error.message
