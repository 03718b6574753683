"""replay_all across processes and follow() on a live store, against real files."""

from __future__ import annotations

import threading
import time
from pathlib import Path

from correx_tools import (
    EventReplayer,
    InMemoryEventStore,
    PostgresEventStore,
    Replay,
    SessionId,
    SQLiteEventStore,
    ToolProjector,
    ToolState,
    follow,
    replay_all,
)

from .strategies import completed, requested, started


def fill(store: SQLiteEventStore | PostgresEventStore | InMemoryEventStore) -> None:
    for number in range(5):
        session = SessionId(f"s{number}")
        events = []
        for call in range(30):
            events += [
                requested(f"{session}-{call}"),
                started(f"{session}-{call}"),
                completed(f"{session}-{call}"),
            ]
        store.append(session, events, expected_sequence=0).unwrap()
    # One session with an event the lifecycle refuses.
    store.append(SessionId("s4"), [started("s4-0")], expected_sequence=90).unwrap()


def sequential(
    store: SQLiteEventStore | PostgresEventStore | InMemoryEventStore,
) -> dict[str, object]:
    replayer = EventReplayer(store)
    return {
        s: replayer.replay(s, ToolProjector(), strict=False).unwrap().state
        for s in store.sessions()
    }


def test_replay_all_in_processes_equals_replaying_one_by_one(tmp_path: Path) -> None:
    with SQLiteEventStore(tmp_path / "e.sqlite") as store:
        fill(store)
        strict = replay_all(store, ToolProjector(), workers=2)
        assert sorted(strict.replays) == ["s0", "s1", "s2", "s3"]
        assert list(strict.failures) == ["s4"]
        assert strict.failures[SessionId("s4")].sequence == 91
        lenient = replay_all(store, ToolProjector(), workers=2, strict=False)
        assert {s: r.state for s, r in lenient.replays.items()} == sequential(store)
        assert len(lenient.replays[SessionId("s4")].quarantined) == 1


def count_invocations(replay: Replay[ToolState]) -> tuple[int, int]:
    return replay.last_sequence, len(replay.state)


def test_replay_all_can_send_back_only_a_summary(tmp_path: Path) -> None:
    with SQLiteEventStore(tmp_path / "e.sqlite") as store:
        fill(store)
        outcome = replay_all(
            store, ToolProjector(), workers=2, strict=False, summarize=count_invocations
        )
        assert outcome.replays == {}
        assert outcome.summaries == {SessionId(f"s{n}"): (90 + (n == 4), 30) for n in range(5)}
        sequential = replay_all(
            store, ToolProjector(), workers=1, strict=False, summarize=count_invocations
        )
        assert sequential.summaries == outcome.summaries


def test_replay_all_of_a_memory_store_runs_here() -> None:
    store = InMemoryEventStore()
    fill(store)
    outcome = replay_all(store, ToolProjector(), workers=4, strict=False)
    assert {s: r.state for s, r in outcome.replays.items()} == sequential(store)


def test_replay_all_on_postgres(postgres_dsn: str, postgres_schema: str) -> None:
    with PostgresEventStore(postgres_dsn, schema=postgres_schema) as store:
        fill(store)
        outcome = replay_all(store, ToolProjector(), workers=2, strict=False)
        assert {s: r.state for s, r in outcome.replays.items()} == sequential(store)


def test_follow_polls_a_sqlite_file_written_by_another_connection(tmp_path: Path) -> None:
    path = tmp_path / "live.sqlite"
    session = SessionId("live")
    with SQLiteEventStore(path) as writer, SQLiteEventStore(path) as reader:
        writer.append(session, [requested("a")], expected_sequence=0).unwrap()

        def write_later() -> None:
            time.sleep(0.2)
            writer.append(session, [started("a")], expected_sequence=1).unwrap()
            writer.append(session, [completed("a")], expected_sequence=2).unwrap()

        thread = threading.Thread(target=write_later)
        thread.start()
        seen = [e.sequence for e in follow(reader, session, poll_interval=0.05, idle_timeout=1.0)]
        thread.join()
    assert seen == [1, 2, 3]


def test_follow_resumes_after_a_sequence() -> None:
    store = InMemoryEventStore()
    store.append(
        SessionId("s"), [requested("a"), started("a"), completed("a")], expected_sequence=0
    ).unwrap()
    naps: list[float] = []
    seen = [
        e.sequence
        for e in follow(store, SessionId("s"), after=1, idle_timeout=0.0, sleep=naps.append)
    ]
    assert seen == [2, 3]
