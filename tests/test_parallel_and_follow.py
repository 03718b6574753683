"""replay_all across processes and follow() on a live store, against real files."""

from __future__ import annotations

import multiprocessing
import os
import pickle
import signal
import threading
import time
from datetime import UTC, timedelta, timezone
from pathlib import Path

import pytest
from hypothesis import given

from correx_tools import (
    EventReplayer,
    InMemoryEventStore,
    PostgresEventStore,
    Replay,
    SessionId,
    SQLiteEventStore,
    StoredEvent,
    ToolProjector,
    ToolState,
    follow,
    replay_all,
)
from correx_tools.core.lifecycle.events import undecoded_text
from correx_tools.core.replay.fold import fold_events
from correx_tools.core.tools.request import undecoded_source
from correx_tools.shell.replay.shipping import pack, unpack

from .strategies import completed, requested, sessions, started


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


def count_but_die_in_a_worker_on_s0(replay: Replay[ToolState]) -> tuple[int, int]:
    # What a worker killed in the middle of its work looks like to replay_all.
    if multiprocessing.parent_process() is not None and replay.state.get("s0-0") is not None:
        os.kill(os.getpid(), signal.SIGKILL)
    return count_invocations(replay)


def test_a_killed_worker_loses_nothing(tmp_path: Path) -> None:
    with SQLiteEventStore(tmp_path / "e.sqlite") as store:
        fill(store)
        outcome = replay_all(
            store,
            ToolProjector(),
            workers=2,
            strict=False,
            summarize=count_but_die_in_a_worker_on_s0,
        )
        alone = replay_all(store, ToolProjector(), strict=False, summarize=count_invocations)
    assert outcome.summaries == alone.summaries
    assert list(outcome.summaries) == [f"s{n}" for n in range(5)]


class SummaryRefused(Exception):
    pass


def count_but_refuse_s0_in_a_worker(replay: Replay[ToolState]) -> tuple[int, int]:
    if multiprocessing.parent_process() is not None and replay.state.get("s0-0") is not None:
        raise SummaryRefused("s0")
    return count_invocations(replay)


def count_but_refuse_here(replay: Replay[ToolState]) -> tuple[int, int]:
    if multiprocessing.parent_process() is None:
        raise SummaryRefused("here")
    return count_invocations(replay)


def test_an_error_in_a_worker_or_here_is_raised_and_the_workers_stop(tmp_path: Path) -> None:
    # The error reaches the caller as it is; the thread that hands sessions to the workers
    # stops with it, without an error of its own (pytest fails a test on a thread's
    # unhandled exception), and no session is handed out once the error is known.
    with SQLiteEventStore(tmp_path / "e.sqlite") as store:
        fill(store)
        for summarize, words in [
            (count_but_refuse_s0_in_a_worker, "s0"),
            (count_but_refuse_here, "here"),
        ]:
            before = threading.active_count()
            with pytest.raises(SummaryRefused, match=f"^{words}$"):
                replay_all(store, ToolProjector(), workers=2, strict=False, summarize=summarize)
            deadline = time.monotonic() + 10
            while threading.active_count() > before and time.monotonic() < deadline:
                time.sleep(0.01)
            assert threading.active_count() == before


def test_a_state_is_shipped_with_its_payloads_undecoded_and_rebuilt_equal(tmp_path: Path) -> None:
    with SQLiteEventStore(tmp_path / "e.sqlite") as store:
        fill(store)
        replay = EventReplayer(store).replay(SessionId("s1"), ToolProjector()).unwrap()
    shipped = pickle.loads(pickle.dumps(pack(replay)))
    text, keys = shipped[0][3][1][0]  # the first request: the text, and where its arguments lie
    assert text.startswith('{"invocation_id":"s1-0"')
    assert keys == ("request", "arguments")
    rebuilt = unpack(shipped)
    assert rebuilt == replay
    for record in rebuilt.state.records():
        assert undecoded_source(record.request) is not None
        assert record.receipt is not None and undecoded_text(record.receipt) is not None
        assert record.requested_at.tzinfo is UTC_ZONE


UTC_ZONE = UTC


@given(sessions(clock_skew=True))
def test_any_state_rebuilt_from_what_a_worker_sends_equals_it(events: list[StoredEvent]) -> None:
    # Built from values (decoded payloads) and, for some, moments in another zone.
    shifted = [
        StoredEvent(
            session_id=e.session_id,
            sequence=e.sequence,
            recorded_at=e.recorded_at.astimezone(timezone(timedelta(hours=2)))
            if e.sequence % 2
            else e.recorded_at,
            event=e.event,
        )
        for e in events
    ]
    replay = fold_events(ToolProjector(), shifted, strict=False).unwrap()
    rebuilt = unpack(pickle.loads(pickle.dumps(pack(replay))))
    assert rebuilt == replay
    assert [r.requested_at.tzinfo for r in rebuilt.state.records()] == [
        r.requested_at.tzinfo for r in replay.state.records()
    ]


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
