"""PostgreSQL under real concurrency: racing threads, parallel processes, live followers."""

from __future__ import annotations

import multiprocessing
import threading
import time
from collections import Counter
from collections.abc import Callable, Iterator

import psycopg
import pytest

from correx_tools import (
    AppendErrorKind,
    DefaultToolRepository,
    EventReplayer,
    InvocationId,
    PostgresEventStore,
    SessionId,
    StoreLayoutError,
    StoreReadError,
)
from correx_tools.shell.cli.errors import CliError
from correx_tools.shell.cli.sources.loading import answered
from correx_tools.shell.stores.postgres.layout import id_key

from .servers import server
from .strategies import requested, started


def _racer(
    barrier: threading.Barrier,
    outcomes: list[str],
    lock: threading.Lock,
    session: SessionId,
    expected: int,
) -> Callable[[int, PostgresEventStore], None]:
    def writer(index: int, store: PostgresEventStore) -> None:
        barrier.wait()
        result = store.append(
            session, [requested(f"r{expected}-t{index}")], expected_sequence=expected
        )
        kind = "ok" if result.map(lambda _: True).value_or(False) else result.failure().kind.value
        with lock:
            outcomes.append(kind)

    return writer


def test_ten_threads_racing_for_one_sequence_give_one_winner_each_round(
    postgres_dsn: str, postgres_schema: str
) -> None:
    stores = [PostgresEventStore(postgres_dsn, schema=postgres_schema) for _ in range(10)]
    session = SessionId("race")
    for round_number in range(50):
        barrier = threading.Barrier(10)
        outcomes: list[str] = []
        lock = threading.Lock()

        writer = _racer(barrier, outcomes, lock, session, round_number)
        threads = [threading.Thread(target=writer, args=(i, s)) for i, s in enumerate(stores)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join()
        assert Counter(outcomes) == {"ok": 1, AppendErrorKind.CONFLICT.value: 9}, (
            round_number,
            outcomes,
        )
    events = list(stores[0].read(session))
    assert [e.sequence for e in events] == list(range(1, 51))
    for store in stores:
        store.close()


def _append_many(dsn: str, schema: str, worker: int, count: int) -> None:
    store = PostgresEventStore(dsn, schema=schema)
    session = SessionId(f"worker-{worker}")
    for sequence in range(count):
        store.append(
            session, [requested(f"w{worker}-{sequence}")], expected_sequence=sequence
        ).unwrap()
    store.close()


def test_four_processes_appending_lose_and_duplicate_nothing(
    postgres_dsn: str, postgres_schema: str
) -> None:
    PostgresEventStore(postgres_dsn, schema=postgres_schema).close()  # tables first: no DDL race
    context = multiprocessing.get_context("spawn")
    workers = [
        context.Process(target=_append_many, args=(postgres_dsn, postgres_schema, w, 200))
        for w in range(4)
    ]
    for process in workers:
        process.start()
    for process in workers:
        process.join(timeout=300)
        assert process.exitcode == 0
    with PostgresEventStore(postgres_dsn, schema=postgres_schema) as store:
        assert store.sessions() == tuple(SessionId(f"worker-{w}") for w in range(4))
        for worker in range(4):
            events = list(store.read(SessionId(f"worker-{worker}")))
            assert [e.sequence for e in events] == list(range(1, 201))
            ids = [e.event.invocation_id for e in events]  # type: ignore[attr-defined]
            assert ids == [f"w{worker}-{i}" for i in range(200)]
    with psycopg.connect(postgres_dsn) as connection:
        total = connection.execute(
            f'SELECT COUNT(*), COUNT(DISTINCT position) FROM "{postgres_schema}".correx_events'
        ).fetchone()
    assert total == (800, 800)


@pytest.fixture
def two_stores(
    postgres_dsn: str, postgres_schema: str
) -> Iterator[tuple[PostgresEventStore, PostgresEventStore]]:
    """A writer and a reader on one fresh schema, each with its own connection."""
    with (
        PostgresEventStore(postgres_dsn, schema=postgres_schema) as writer,
        PostgresEventStore(postgres_dsn, schema=postgres_schema) as reader,
    ):
        yield writer, reader


def test_follow_yields_events_as_they_are_committed(
    two_stores: tuple[PostgresEventStore, PostgresEventStore],
) -> None:
    writer, reader = two_stores
    session = SessionId("live")
    writer.append(session, [requested("a")], expected_sequence=0).unwrap()

    def write_later() -> None:
        time.sleep(0.3)
        writer.append(session, [started("a")], expected_sequence=1).unwrap()
        time.sleep(0.3)
        writer.append(session, [requested("b"), started("b")], expected_sequence=2).unwrap()

    thread = threading.Thread(target=write_later)
    thread.start()
    seen = []
    # Woken by NOTIFY: a minute's poll would come after the half minute of quiet that ends
    # the follow, and the events written later would not be seen.
    for event in reader.follow(session, after=0, idle_timeout=30.0, poll_interval=60.0):
        seen.append(event.sequence)
        if event.sequence == 4:
            break
    thread.join()
    assert seen == [1, 2, 3, 4]


def test_follow_stops_after_its_idle_timeout(postgres_dsn: str, postgres_schema: str) -> None:
    with PostgresEventStore(postgres_dsn, schema=postgres_schema) as store:
        store.append(SessionId("quiet"), [requested("q")], expected_sequence=0).unwrap()
        seen: list[int] = []

        def follow() -> None:
            seen.extend(e.sequence for e in store.follow(SessionId("quiet"), after=0,
                                                         idle_timeout=0.5))  # fmt: skip

        # It ends by itself: waiting on, the thread would still be alive at any deadline (a
        # generous one, so that a busy machine's slowness is never read as not stopping).
        following = threading.Thread(target=follow, daemon=True)
        following.start()
        following.join(timeout=120)
        assert not following.is_alive() and seen == [1]


def test_schema_names_are_checked(postgres_dsn: str) -> None:
    with pytest.raises(ValueError, match="schema"):
        PostgresEventStore(postgres_dsn, schema='x"; DROP TABLE y; --')


def test_ids_are_stored_as_utf8_bytes_keyed_by_their_digest(
    postgres_dsn: str, postgres_schema: str
) -> None:
    with PostgresEventStore(postgres_dsn, schema=postgres_schema) as store:
        store.append(SessionId("s\x00é"), [requested("i\x00é")], expected_sequence=0).unwrap()
    with psycopg.connect(postgres_dsn) as connection:
        session = connection.execute(
            f'SELECT session_key, session_id FROM "{postgres_schema}".correx_sessions'
        ).fetchone()
        invocation = connection.execute(
            f'SELECT invocation_key, invocation_id FROM "{postgres_schema}".correx_invocations'
        ).fetchone()
    assert session == (id_key("s\x00é"), "s\x00é".encode())
    assert invocation == (id_key("i\x00é"), "i\x00é".encode())


def test_tables_of_the_earlier_text_layout_are_refused_clearly(
    postgres_dsn: str, postgres_schema: str
) -> None:
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute(f'CREATE SCHEMA "{postgres_schema}"')
        connection.execute(
            f'CREATE TABLE "{postgres_schema}".correx_sessions '
            "(session_id TEXT PRIMARY KEY, last_sequence BIGINT NOT NULL)"
        )
    with pytest.raises(ValueError, match="earlier layout"):
        PostgresEventStore(postgres_dsn, schema=postgres_schema)
    with pytest.raises(StoreLayoutError, match="earlier layout"):  # not "holds no store"
        PostgresEventStore(postgres_dsn, schema=postgres_schema, read_only=True)


def test_follow_does_not_skip_past_a_writer_whose_commit_is_slow(
    postgres_dsn: str,
    postgres_schema: str,
    two_stores: tuple[PostgresEventStore, PostgresEventStore],
) -> None:
    writer, follower = two_stores
    session = SessionId("slow")
    writer.append(session, [requested("a")], expected_sequence=0).unwrap()
    # A slow writer: it holds the session's row, as an append does until it commits.
    blocker = psycopg.connect(postgres_dsn)
    blocker.execute(
        f'SELECT 1 FROM "{postgres_schema}".correx_sessions WHERE session_key = %s FOR UPDATE',
        (id_key(session),),
    )
    appended = threading.Event()

    def second_writer() -> None:
        writer.append(session, [started("a")], expected_sequence=1).unwrap()
        appended.set()

    thread = threading.Thread(target=second_writer)
    thread.start()
    seen = [e.sequence for e in follower.follow(session, idle_timeout=0.5, poll_interval=0.1)]
    assert seen == [1]  # nothing can be visible past the slow writer
    assert not appended.is_set()
    blocker.commit()
    blocker.close()
    thread.join(timeout=30)
    assert appended.is_set()
    assert [e.sequence for e in follower.follow(session, after=1, idle_timeout=0.5)] == [2]


# -- a server that crashes and comes back (issue 15, item 14) --------------------------


def test_a_store_survives_a_server_crash_and_reconnects(own_server: tuple[str, str]) -> None:
    dsn, directory = own_server
    secret_dsn = dsn.replace("postgres@", "postgres:hunter2@")
    store = PostgresEventStore(secret_dsn)
    session = SessionId("s")
    store.append(session, [requested("a")], expected_sequence=0).unwrap()
    server("crash", directory)
    # While the server is down: a typed, retriable error, never a psycopg exception.
    error = store.append(session, [started("a")], expected_sequence=1).failure()
    assert error.kind is AppendErrorKind.UNAVAILABLE
    assert "hunter2" not in error.message and "***" in error.message
    with pytest.raises(StoreReadError) as reading:
        list(store.read(session))
    assert "unavailable" in str(reading.value) and "hunter2" not in str(reading.value)
    with pytest.raises(StoreReadError):
        store.last_sequence(session)
    # The repository's questions answer as they would for a damaged file: a ReplayError.
    repository = DefaultToolRepository(EventReplayer(store))
    for answer in (
        repository.get(session),
        repository.summary(session),
        repository.at(session, 1),
        repository.latest(session, 5),
        repository.history(session, InvocationId("a")),
    ):
        failure = answer.failure()
        assert failure.message.startswith("cannot read: ") and "unavailable" in failure.message
        assert "hunter2" not in failure.message
    # The command says so in the database's words, blaming no event.
    with pytest.raises(CliError) as said:
        answered(repository.summary(session), session, lenient=False)
    assert "unavailable" in str(said.value) and "damaged" not in str(said.value)
    # Back up: the same store object reconnects on its next call.
    server("restart", directory)
    store.append(session, [started("a")], expected_sequence=1).unwrap()
    assert [e.sequence for e in store.read(session)] == [1, 2]
    assert store.last_sequence(session) == 2
    store.close()


def test_a_role_that_may_not_read_the_store_is_told_so(
    postgres_dsn: str, postgres_schema: str
) -> None:
    import psycopg  # noqa: PLC0415 - only PostgreSQL tests need it
    from psycopg.conninfo import conninfo_to_dict, make_conninfo  # noqa: PLC0415

    role, schema = f"r_{postgres_schema}", postgres_schema
    owner = PostgresEventStore(postgres_dsn, schema=schema)
    owner.append(SessionId("s"), [requested("a")], expected_sequence=0).unwrap()
    owner.close()
    reader = make_conninfo(**{**conninfo_to_dict(postgres_dsn), "user": role, "password": ""})

    def refused(*, read_only: bool = True) -> str:
        with pytest.raises(StoreLayoutError) as raised:
            PostgresEventStore(reader, schema=schema, read_only=read_only)
        return str(raised.value)

    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute(f'CREATE ROLE "{role}" LOGIN')
        try:
            for read_only in (True, False):
                assert "holds a correx event store, but this role may not read it (it lacks " \
                    "USAGE on the schema); GRANT it" in refused(read_only=read_only)  # fmt: skip
            admin.execute(f'GRANT USAGE ON SCHEMA "{schema}" TO "{role}"')
            admin.execute(f'GRANT SELECT ON "{schema}".correx_sessions, "{schema}".correx_events '
                          f'TO "{role}"')  # fmt: skip
            lacking = (
                "(it lacks SELECT on correx_activity, correx_catalog, correx_checkpoints, "
                "correx_invocations, correx_models, correx_pushed, correx_search, "
                "correx_search_runs, correx_session_heads, correx_settings, correx_spent); "
                "GRANT it"
            )
            assert lacking in refused()
            admin.execute(f'GRANT SELECT ON ALL TABLES IN SCHEMA "{schema}" TO "{role}"')
            granted = PostgresEventStore(reader, schema=schema, read_only=True)
            assert [e.sequence for e in granted.read(SessionId("s"))] == [1]
            granted.close()
        finally:
            admin.execute(f'DROP OWNED BY "{role}"')
            admin.execute(f'DROP ROLE "{role}"')


def test_tables_that_only_look_like_a_stores_are_not_one(
    postgres_dsn: str, postgres_schema: str
) -> None:
    import psycopg  # noqa: PLC0415 - only PostgreSQL tests need it

    with psycopg.connect(postgres_dsn, autocommit=True) as admin:
        admin.execute(f'CREATE SCHEMA "{postgres_schema}"')
        admin.execute(f'CREATE TABLE "{postgres_schema}".correx_notes (x int)')
        admin.execute(f'CREATE TABLE "{postgres_schema}".correxion (y int)')
    with pytest.raises(StoreLayoutError, match="holds no correx event store; create one"):
        PostgresEventStore(postgres_dsn, schema=postgres_schema, read_only=True)
    store = PostgresEventStore(postgres_dsn, schema=postgres_schema)  # makes its own beside them
    store.append(SessionId("s"), [requested("a")], expected_sequence=0).unwrap()
    store.close()
