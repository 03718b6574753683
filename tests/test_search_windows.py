"""PostgreSQL's search asks its index for the newest ranges of ids first (a GIN gives its
matches in no order): the hits are those one question of every id gives, in the same
order, and the values SQLite's index finds."""

from __future__ import annotations

import random
from collections.abc import Iterator
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from correx_tools import PostgresEventStore, SessionId, SQLiteEventStore, StoredEvent
from correx_tools.core.lifecycle.conversation import Prompt, conversation_event
from correx_tools.shell.stores.postgres.search import PostgresSearch

from .strategies import EPOCH

VOCABULARY = ("ant", "bee", "cat", "dog", "eel", "fox", "gnu", "hen", "ibis", "jay")
SESSIONS = 90
"""More sessions than the fewest the ranges are asked by (`FEWEST_SESSIONS`)."""


def _sessions() -> list[list[StoredEvent]]:
    """Sessions of a few prompts each, words from a small vocabulary (most in many values,
    ``rare`` in a few)."""
    rng = random.Random(5)
    made = []
    for number in range(SESSIONS):
        session = SessionId(f"s{number:03d}")
        said = [" ".join(rng.choices(VOCABULARY, k=rng.randint(1, 4))) for _ in range(6)]
        if number % 29 == 3:
            said[2] += " rare"
        made.append([
            StoredEvent(session_id=session, sequence=n, recorded_at=EPOCH + timedelta(hours=number,
                        seconds=n), event=conversation_event(Prompt(text=text)))
            for n, text in enumerate(said, 1)
        ])  # fmt: skip
    return made


Stores = tuple[PostgresEventStore, SQLiteEventStore]


@pytest.fixture(scope="module")
def stores(postgres_dsn: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Stores]:
    import psycopg  # noqa: PLC0415 - only PostgreSQL tests need it

    schema = f"t_windows_{random.getrandbits(40):x}"
    postgres = PostgresEventStore(postgres_dsn, schema=schema)
    postgres.init_db()
    sqlite = SQLiteEventStore(Path(tmp_path_factory.mktemp("windows")) / "events.sqlite")
    for session in _sessions():  # one at a time: each session a number of its own
        postgres.import_events(session).unwrap()
        sqlite.import_events(session).unwrap()
    yield postgres, sqlite
    postgres.close()
    sqlite.close()
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute(f'DROP SCHEMA IF EXISTS "{schema}" CASCADE')


def _found(store: object, text: str, limit: int | None) -> list[tuple[str, int]]:
    return [(hit.session_id, hit.sequence) for hit in store.search(text, limit=limit)]  # type: ignore[attr-defined]


questions = st.one_of(
    st.sampled_from((*VOCABULARY, "rare", "nowhere")),
    st.tuples(st.sampled_from(VOCABULARY), st.sampled_from(VOCABULARY)).map(" ".join),
    st.tuples(st.sampled_from(VOCABULARY), st.sampled_from(VOCABULARY)).map(
        lambda pair: f'"{pair[0]} {pair[1]}"'
    ),
)


@settings(
    max_examples=40, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture]
)
@given(text=questions, limit=st.sampled_from((1, 3, 30, 200, None)))
def test_the_ranges_find_what_one_question_of_every_id_finds_in_its_order(
    stores: Stores, text: str, limit: int | None
) -> None:
    postgres, sqlite = stores
    with postgres._database.snapshot() as cursor:  # the test holds it to several ranges
        assert len(postgres._database.dialect.search.windows(cursor)) > 1
    windowed = _found(postgres, text, limit)
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(PostgresSearch, "windows", lambda self, cursor: [None])
        assert windowed == _found(postgres, text, limit)
    everything = set(_found(sqlite, text, None))
    assert len(windowed) == (len(everything) if limit is None else min(limit, len(everything)))
    assert set(windowed) <= everything
