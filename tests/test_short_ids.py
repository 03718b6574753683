"""Naming a session or an invocation by less than its id: the rule, and the stores' index.

`resolve_name` is held to a plain model (every id looked at, no bisection, no
limit) over random sets of ids; each store's prefix lookup is held to a sorted
list, on ids that reach the ends of Unicode; the repository answers the same
from every kind of store.
"""

from __future__ import annotations

import tempfile
import uuid
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure, Success

from correx_tools import (
    DefaultToolRepository,
    EventReplayer,
    InMemoryEventStore,
    JsonlEventLog,
    PostgresEventStore,
    SessionId,
    SQLiteEventStore,
    UnresolvedId,
    short_invocation_id,
)
from correx_tools.core.tools.short_ids import (
    SEPARATORS,
    SHOWN,
    prefix_end,
    resolve_name,
    starting_in,
)

from .growth import grows_at_most
from .strategies import requested

# Few letters, so that ids share prefixes; the separators; the ends of the code points.
LETTERS = "ab" + SEPARATORS[:3] + "\ud7ff\ue000\U0010ffff"
names = st.text(st.sampled_from(LETTERS), max_size=5)
SESSION = "ab"


def model(given_name: str, ids: set[str], session: str | None) -> tuple[str | None, list[str]]:
    """What the rule names, by looking at every id: the one id, or the sorted candidates."""
    if not given_name:
        return None, []
    if given_name in ids:
        return given_name, []
    forms = [given_name] if session is None else [
        given_name, *(session + separator + given_name for separator in SEPARATORS)
    ]  # fmt: skip
    whole = sorted(form for form in forms[1:] if form in ids)
    matches = whole or sorted(i for i in ids if any(i.startswith(f) for f in forms))
    return (matches[0], []) if len(matches) == 1 else (None, matches)


@settings(max_examples=400)
@given(
    ids=st.sets(names.filter(bool), max_size=12),
    given_name=names,
    in_session=st.booleans(),
    extra=st.lists(names, max_size=4),
    by_key=st.booleans(),
)
def test_the_rule_names_what_a_plain_model_names(
    ids: set[str], given_name: str, in_session: bool, extra: list[str], by_key: bool
) -> None:
    session = SESSION if in_session else None
    if session is not None:  # ids that begin with the session's own prefix, too
        ids |= {session + SEPARATORS[len(e) % len(SEPARATORS)] + e for e in extra if e}
    kind = "session" if session is None else "invocation"
    # A store that looks whole ids up by key answers the first two rules that way.
    present = (lambda forms: [f for f in forms if f in ids]) if by_key else None
    found = resolve_name(
        given_name, starting_in(sorted(ids)), kind=kind, session_id=session, present=present
    )
    one, candidates = model(given_name, ids, session)
    if one is not None:
        assert found == Success(one)
        return
    assert isinstance(found, Failure)
    error = found.failure()
    assert error.candidates == tuple(candidates[:SHOWN])
    assert error.more == (len(candidates) > SHOWN)
    assert error.ambiguous == (len(candidates) > 1)
    assert "\n" not in error.message and repr(given_name) in error.message


def test_an_id_given_whole_wins_over_the_longer_ids_it_begins() -> None:
    ids = sorted(["s/c1", "s/c10", "s/c11", "c1"])
    find = starting_in(ids)
    assert resolve_name("c1", find, kind="invocation", session_id="s") == Success("c1")
    assert resolve_name("s/c1", find, kind="invocation", session_id="s") == Success("s/c1")
    assert resolve_name("c10", find, kind="invocation", session_id="s") == Success("s/c10")
    ambiguous = resolve_name("c", find, kind="invocation", session_id="s").failure()
    assert ambiguous.candidates == ("c1", "s/c1", "s/c10", "s/c11")
    assert str(ambiguous) == "invocation 'c' is ambiguous in session 's': c1, s/c1, s/c10, s/c11"


@given(prefix=names.filter(bool), rest=names)
def test_a_prefix_ends_before_the_first_text_it_does_not_begin(prefix: str, rest: str) -> None:
    end = prefix_end(prefix)
    if end is None:
        assert set(prefix) == {"\U0010ffff"}
        return
    assert prefix + rest < end
    assert "\ud800" not in end  # a surrogate is no text a database keeps
    assert not end.startswith(prefix)


@contextmanager
def stores(tmp: Path, dsn: str | None) -> Iterator[list[Any]]:
    """A SQLite file, a JSONL log, memory and (with ``dsn``) PostgreSQL: fresh, empty."""
    made: list[Any] = [
        SQLiteEventStore(tmp / "s.sqlite"),
        JsonlEventLog(tmp / "s.jsonl"),
        InMemoryEventStore(),
    ]
    schema = f"n_{uuid.uuid4().hex[:12]}"
    if dsn is not None:
        made.append(PostgresEventStore(dsn, schema=schema))
    try:
        yield made
    finally:
        for store in made:
            close = getattr(store, "close", None)
            if close is not None:
                close()
        if dsn is not None:
            import psycopg  # noqa: PLC0415 - only with PostgreSQL

            with psycopg.connect(dsn, autocommit=True) as connection:
                connection.execute(f'DROP SCHEMA "{schema}" CASCADE')


ids_of_any_text = st.sets(
    st.text(st.sampled_from("ab/\x00é\ud7ff\ue000\uffff\U0001f600\U0010ffff"), min_size=1,
            max_size=4),
    min_size=1, max_size=10,
)  # fmt: skip


def check_every_store(ids: set[str], prefixes: list[str], dsn: str | None) -> None:
    """Each store's repository names, for each prefix, what the rule names over the list."""
    model_find = starting_in(sorted(ids))
    with tempfile.TemporaryDirectory() as directory, stores(Path(directory), dsn) as made:
        for store in made:
            events = [requested(i) for i in sorted(ids)]
            store.append(SessionId(SESSION), events, expected_sequence=0).unwrap()
            repository = DefaultToolRepository(EventReplayer(store), strict=False)
            for prefix in prefixes:
                expected = resolve_name(prefix, model_find, kind="invocation", session_id=SESSION)
                assert repository.resolve_invocation(SessionId(SESSION), prefix) == expected


@settings(max_examples=60, deadline=None)
@given(ids=ids_of_any_text, data=st.data())
def test_every_store_names_what_the_rule_names_over_a_sorted_list(
    ids: set[str], data: st.DataObject
) -> None:
    prefixes = [i[:cut] for i in ids for cut in range(len(i) + 1)]
    prefixes += data.draw(st.lists(st.text(max_size=3), max_size=3))
    check_every_store(ids, prefixes, None)


@settings(max_examples=15, deadline=None)
@given(ids=ids_of_any_text)
def test_postgres_names_what_the_rule_names(postgres_dsn: str, ids: set[str]) -> None:
    check_every_store(ids, [i[:cut] for i in ids for cut in range(len(i) + 1)], postgres_dsn)


def test_a_session_is_named_by_a_prefix_and_its_whole_id_wins(tmp_path: Path) -> None:
    with SQLiteEventStore(tmp_path / "s.sqlite") as store:
        for session in ("run-1", "run-10", "other"):
            store.append(SessionId(session), [requested(f"{session}/c")], expected_sequence=0)
        repository = DefaultToolRepository(EventReplayer(store))
        assert repository.resolve_session("run-1") == Success("run-1")
        assert repository.resolve_session("run-10") == Success("run-10")
        assert repository.resolve_session("o") == Success("other")
        ambiguous = repository.resolve_session("run")
        assert isinstance(ambiguous, Failure)
        error: UnresolvedId = ambiguous.failure()
        assert error.ambiguous and error.candidates == ("run-1", "run-10")
        assert str(error) == "session 'run' is ambiguous: run-1, run-10"
        unknown = repository.resolve_session("nope").failure()
        assert not unknown.ambiguous and str(unknown) == "no session 'nope'"
        assert repository.resolve_invocation(SessionId("run-1"), "c") == Success("run-1/c")
        assert short_invocation_id("run-1", "run-1/c") == "c"


def test_an_undecodable_argument_names_nothing(tmp_path: Path) -> None:
    with SQLiteEventStore(tmp_path / "s.sqlite") as store:
        store.append(SessionId("s"), [requested("s/a")], expected_sequence=0).unwrap()
        repository = DefaultToolRepository(EventReplayer(store))
        # What the interpreter makes of a byte an argument could not decode.
        found = repository.resolve_invocation(SessionId("s"), "\udcff")
        assert str(found.failure()) == "invocation '\\udcff' was never requested in session 's'"


@pytest.mark.slow
def test_a_name_is_found_at_once_in_a_large_session(tmp_path: Path) -> None:
    from benchmarks.sessions import session  # noqa: PLC0415 - the benchmarks' own sessions

    big = SessionId("big")
    names = [("1234", "big-1234"), ("1999", "big-1999"), ("big-1", "big-1"), ("333", "big-333")]

    def looked_up(events: int) -> Callable[[], object]:
        path = tmp_path / f"big-{events}.sqlite"
        with SQLiteEventStore(path) as store:
            store.import_events(session(events, open_at_once=3, name="big")).unwrap()
        store = SQLiteEventStore(path, read_only=True)
        repository = DefaultToolRepository(EventReplayer(store), strict=False)

        def look() -> None:
            for name, expected in names:
                assert repository.resolve_invocation(big, name) == Success(expected)
            ambiguous = repository.resolve_invocation(big, "big-").failure()
            assert ambiguous.ambiguous and ambiguous.more

        return look

    # Ten times the events: a lookup that read the session would cost ten times as much.
    grows_at_most(3.0, looked_up, 6_000, 60_000, runs=5)
