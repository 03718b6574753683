"""The time-travel index is derived data: dropped, rebuilt, and never trusted when it does not
match the events it covers.

Each test changes a real SQLite file (or PostgreSQL schema) behind the store's
back, as a hand edit, an older release or a damaged write would, and checks
that the next answer is still exactly the fold's.
"""

from __future__ import annotations

import sqlite3
from pathlib import Path

import psycopg
import pytest

from correx_tools import (
    DefaultToolRepository,
    EventReplayer,
    InvocationId,
    PostgresEventStore,
    Retention,
    SessionId,
    SQLiteEventStore,
    ToolProjector,
)
from correx_tools.shell.replay.by_folding import ByFolding
from correx_tools.shell.replay.questions import FromIndex
from correx_tools.shell.stores.codec.encoding import encode_event
from correx_tools.shell.stores.port import EventStore, StoreReadError

from .strategies import completed, failed, requested, started, stored
from .test_cli import run
from .test_streamed import fields

S = SessionId("s")


def session_events() -> list[object]:
    events: list[object] = []
    for i in range(12):
        events += [requested(f"i{i}"), started(f"i{i}")]
        events.append(completed(f"i{i}") if i % 3 else failed(f"i{i}"))
    events.append(started("i0"))  # refused: i0 has ended
    return events


def answers(store: EventStore) -> list[object]:
    repository = DefaultToolRepository(EventReplayer(store), strict=False)
    last = repository.last_sequence(S)
    with repository.view(S) as view:
        outlines = [fields(outline) for outline in view.outlines().unwrap()]
    return [
        outlines,
        [repository.at(S, k).unwrap() for k in range(last + 1)],
        [repository.summary(S, at=k).unwrap() for k in range(last + 1)],
        repository.diff(S, 3, last).unwrap(),
        repository.history(S, "i4").unwrap(),  # type: ignore[arg-type]
        repository.refused(S),
    ]


def folded(store: EventStore) -> list[object]:
    """The same answers, from a fold of what the store now reads."""
    replayer = EventReplayer(store)
    replay = replayer.replay(S, ToolProjector(), strict=False, retention=Retention.all()).unwrap()
    timeline = replay.timeline
    assert timeline is not None
    last = replay.last_sequence
    by_folding = ByFolding(S, replayer, strict=False)
    return [
        [fields(record) for record in timeline.at(last).records()],
        [timeline.at(k) for k in range(last + 1)],
        [by_folding.summary(k).unwrap() for k in range(last + 1)],
        timeline.diff(3, last),
        timeline.history("i4"),  # type: ignore[arg-type]
        replay.quarantined,
    ]


def answered_from_index(store: EventStore) -> bool:
    with DefaultToolRepository(EventReplayer(store))._questions(S) as questions:
        return isinstance(questions, FromIndex)


@pytest.fixture
def sqlite_store(tmp_path: Path) -> SQLiteEventStore:
    store = SQLiteEventStore(tmp_path / "e.sqlite", checkpoint_interval=5)
    store.append(S, session_events(), expected_sequence=0).unwrap()
    return store


def sql(store: SQLiteEventStore, statement: str, *parameters: object) -> None:
    with sqlite3.connect(store.path) as connection:
        connection.execute(statement, parameters)


def test_the_index_answers_as_the_fold_when_nothing_changed(sqlite_store: SQLiteEventStore) -> None:
    assert answered_from_index(sqlite_store)
    assert answers(sqlite_store) == folded(sqlite_store)


def test_an_event_edited_by_hand_is_refused_by_every_read_and_never_vouched_for_unasked(
    sqlite_store: SQLiteEventStore,
) -> None:
    before = answers(sqlite_store)
    # Event 3 (i0's end) becomes a failure, behind the store's back.
    changed = stored([failed("i0", "edited by hand")], start=3, session=S)[0]
    encoded = encode_event(changed)
    sql(
        sqlite_store,
        "UPDATE events SET type = ?, data = ? WHERE session_id = ? AND sequence = 3",
        encoded.type,
        encoded.data,
        S,
    )
    # No answer is made of it: the read names the event and stops.
    with pytest.raises(StoreReadError, match=r"sequence 3.*changed after it was written"):
        list(sqlite_store.read(S))
    folding = EventReplayer(sqlite_store).replay(S, ToolProjector(), strict=False)
    assert "changed after it was written" in folding.failure().message
    # Not rebuilt behind anyone's back: a new index would vouch for the edit, and the
    # chain that names it (for verify) would be gone. Appends wait for the decision too.
    assert not answered_from_index(sqlite_store)
    refused = sqlite_store.reindex()
    assert "sequence 3: the event changed after it was written" in refused.damaged[S]
    assert not sqlite_store.verify_session(S).intact
    last = sqlite_store.last_sequence(S)
    appended = sqlite_store.append(S, [requested("later")], expected_sequence=last)
    assert "changed after it was written" in appended.failure().message
    # Said to be meant (a secret taken out, say), the edit is indexed and trusted.
    accepted = sqlite_store.reindex(accept_edits=True)
    assert accepted.damaged == {} and sqlite_store.verify_session(S).intact
    after = answers(sqlite_store)
    assert after != before and after == folded(sqlite_store)
    assert answered_from_index(sqlite_store)


def test_events_appended_by_an_older_release_are_indexed_before_any_answer(
    sqlite_store: SQLiteEventStore,
) -> None:
    last = sqlite_store.last_sequence(S)
    extra = stored([requested("late"), started("late")], start=last + 1, session=S)
    for event in extra:
        encoded = encode_event(event)
        sql(
            sqlite_store,
            "INSERT INTO events (session_id, sequence, recorded_at, type, version, data) "
            "VALUES (?, ?, ?, ?, ?, ?)",
            S,
            event.sequence,
            encoded.recorded_at,
            encoded.type,
            encoded.version,
            encoded.data,
        )
    sql(sqlite_store, "INSERT INTO invocations (invocation_id, session_id, sequence) "
        "VALUES ('late', ?, ?)", S, last + 1)  # fmt: skip
    assert answers(sqlite_store) == folded(sqlite_store)
    repository = DefaultToolRepository(EventReplayer(sqlite_store), strict=False)
    assert repository.summary(S).unwrap().invocations == 13


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE checkpoints SET completed = completed + 1 WHERE sequence = 10",
        "UPDATE checkpoints SET chain = chain + 1 WHERE sequence = 10",
        "UPDATE session_heads SET completed = 0",
        "DELETE FROM checkpoints",
        "DELETE FROM session_heads",
        "UPDATE invocations SET ended_seq = 2 WHERE invocation_id = 'i4'",
    ],
)
def test_derived_data_changed_by_hand_is_detected_and_never_trusted(
    sqlite_store: SQLiteEventStore, damage: str
) -> None:
    expected = folded(sqlite_store)
    sql(sqlite_store, damage)
    assert answers(sqlite_store) == expected
    # Asked again: by now a writable store has rebuilt what it found wrong.
    assert answers(sqlite_store) == expected


@pytest.mark.parametrize(
    "damage",
    [
        "UPDATE invocations SET request_chain = request_chain + 1 WHERE invocation_id = 'i4'",
        "UPDATE invocations SET end_crc = end_crc + 1 WHERE invocation_id = 'i4'",
        "UPDATE invocations SET end_crc = 123 WHERE invocation_id = 'i0'",  # failed: none kept
        # A CRC out of range standing in for the chain below it: sealed the same, but for
        # the range check (any call whose chain is odd will do).
        "UPDATE invocations SET request_chain = request_chain - 1, "
        "request_crc = request_crc + 4294967296 WHERE invocation_id = "
        "(SELECT invocation_id FROM invocations WHERE request_chain % 2 = 1 LIMIT 1)",
    ],
)
def test_a_kept_chain_or_crc_edited_is_read_around_and_named(
    sqlite_store: SQLiteEventStore, damage: str
) -> None:
    # An outline is checked from its row alone: what the row keeps of its events is sealed.
    expected = folded(sqlite_store)[0]
    sql(sqlite_store, damage)
    reader = SQLiteEventStore(sqlite_store.path, read_only=True)
    with DefaultToolRepository(EventReplayer(reader), strict=False).view(S) as view:
        outlines = [fields(outline) for outline in view.outlines().unwrap()]
        assert view.stale  # the row did not hold: answered by folding
    assert outlines == expected
    [fault] = reader.verify_session(S).faults
    assert "does not match" in fault.message and not fault.in_events


def test_a_read_only_store_with_a_stale_index_answers_by_folding(
    sqlite_store: SQLiteEventStore,
) -> None:
    sql(sqlite_store, "UPDATE session_heads SET stale = 1")
    reader = SQLiteEventStore(sqlite_store.path, read_only=True)
    assert not answered_from_index(reader)
    assert answers(reader) == folded(reader)


def test_reindex_drops_the_index_and_builds_the_same_one(sqlite_store: SQLiteEventStore) -> None:
    def snapshot(table: str) -> list[tuple[object, ...]]:
        with sqlite3.connect(sqlite_store.path) as connection:
            return connection.execute(f"SELECT * FROM {table} ORDER BY 1, 2").fetchall()

    tables = ["events", "invocations", "session_heads", "checkpoints"]
    before = {table: snapshot(table) for table in tables}
    seen: list[tuple[int, int]] = []
    assert (
        sqlite_store.reindex(progress=lambda done, total: seen.append((done, total))).events == 37
    )
    assert {table: snapshot(table) for table in tables} == before
    assert seen[-1] == (37, 37)


def test_a_postgres_index_edited_by_hand_is_rebuilt(
    postgres_dsn: str, postgres_schema: str
) -> None:
    store = PostgresEventStore(postgres_dsn, schema=postgres_schema, checkpoint_interval=5)
    store.append(S, session_events(), expected_sequence=0).unwrap()
    assert answered_from_index(store)
    expected = folded(store)
    for damage in (
        "UPDATE {s}.correx_checkpoints SET completed = completed + 1",
        "UPDATE {s}.correx_events SET version = version WHERE sequence = 3",
        "DELETE FROM {s}.correx_session_heads",
    ):
        with psycopg.connect(postgres_dsn, autocommit=True) as connection:
            connection.execute(damage.format(s=f'"{postgres_schema}"'))
        assert answers(store) == expected
        assert answered_from_index(store)
    store.close()


@pytest.mark.parametrize(
    ("sequence", "edited"),
    [
        (
            13,
            '{"invocation_id":"i4","request":{"arguments":{"path":"/etc/shadow"},'
            '"tool_name":"read_file"},"tier":"auto","tool_name":"read_file"}',
        ),
        (15, '{"invocation_id":"i4","receipt":{"exit_code":0,"metadata":{},"output":"forged"}}'),
        (15, '{"invocation_id":"i4","receipt":'),  # not even JSON
    ],
)
def test_a_payload_edited_behind_the_triggers_is_held_to_its_row_when_an_entry_hands_it_on(
    sqlite_store: SQLiteEventStore, sequence: int, edited: str
) -> None:
    # A row's seal covers its events' chains and the CRCs of their JSON, kept in the row:
    # an entry that hands a payload on holds it to the kept CRC, so the edit is seen (no
    # trigger marked the session stale); the fold that answers instead reads the events,
    # each held to its chain, and names the edited one rather than hand it on.
    for trigger in ("events_changed", "events_deleted", "events_unindexed"):
        sql(sqlite_store, f"DROP TRIGGER {trigger}")
    sql(sqlite_store, "UPDATE events SET data = ? WHERE sequence = ?", edited, sequence)
    reader = SQLiteEventStore(sqlite_store.path, read_only=True)
    with DefaultToolRepository(EventReplayer(reader), strict=False).view(S) as view:
        said = view.history(InvocationId("i4")).failure().message
        assert view.stale  # the row's events did not hold: answered by folding
    why = "cannot read" if edited.endswith(":") else "the event changed after it was written"
    assert f"sequence {sequence}" in said and why in said
    result = run("history", str(reader.path), S, "i4", ok=False)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert f"sequence {sequence}" in result.stderr and why in result.stderr
