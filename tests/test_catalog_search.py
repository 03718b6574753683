"""The search's own rules: the tokenizer's words, a search's terms and what matches them
against a plain reading of the rule, bounded work on hostile text, snippets masked before
they are cut; and a database store's catalog and words checked by ``verify``, repaired
by a rebuild, and its unreachable words let go of when they outnumber the live ones."""

from __future__ import annotations

import sqlite3
from datetime import timedelta
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from correx_tools import SessionId, SQLiteEventStore, StoredEvent
from correx_tools.core.catalog.snippets import SNIPPET_CHARS, snippet
from correx_tools.core.catalog.words import MAX_WORD, MAX_WORDS, matches, terms, words
from correx_tools.core.lifecycle.conversation import Prompt, conversation_event
from correx_tools.core.report.redaction import MASK, Redaction
from correx_tools.shell.stores.postgres.search import tsvector_text
from correx_tools.shell.stores.sqlite import search as sqlite_search

from .strategies import EPOCH, completed, requested

alphabet = st.sampled_from(list('ab cA-Z9é.\n"İß'))
texts = st.text(alphabet, max_size=40)


@given(texts)
def test_words_are_lower_cased_runs_of_letters_and_digits(text: str) -> None:
    found = words(text)
    assert all(word and word.isalnum() and word == word.lower() for word in found)
    assert all(len(word) <= MAX_WORD for word in found)
    # Nothing but the words: everything between them is no letter or digit.
    rest = text.lower()
    for word in found:
        rest = rest.replace(word, " ", 1)
    assert not any(char.isalnum() for char in rest)


@given(texts, texts)
def test_a_value_matches_as_the_rule_reads_plainly(value: str, search: str) -> None:
    said, asked = words(value), terms(search)
    plain = " " + " ".join(said) + " "
    expected = bool(asked) and all(" " + " ".join(term) + " " in plain for term in asked)
    assert matches(said, asked) == expected


@settings(max_examples=30, deadline=None)
@given(st.lists(st.text(max_size=80), max_size=4))
def test_the_words_copied_into_postgresql_are_what_array_to_tsvector_makes(
    postgres_dsn: str, values: list[str]
) -> None:
    # A push copies each value's tsvector in as text; the words' own function is the rule.
    import psycopg  # noqa: PLC0415 - only this test needs the server

    said = [word for value in values for word in words(value)] or ["x"]
    with psycopg.connect(postgres_dsn) as connection:
        copied, made = connection.execute(
            "SELECT %s::tsvector, array_to_tsvector(%s)", (tsvector_text(said), said)
        ).fetchone()
    assert copied == made


def test_hostile_text_costs_a_bounded_amount_of_work() -> None:
    huge = "a" * 5_000_000 + " b" * 5_000_000
    found = words(huge)
    assert len(found) <= MAX_WORDS and found[0] == "a" * MAX_WORD
    assert len(words("x " * 10_000_000)) == MAX_WORDS


def test_a_snippet_is_masked_whole_then_cut() -> None:
    secret = "PGPASSWORD=hunter2"
    text = "word " * 30 + f"{secret} then the needle " + "tail " * 100
    cut = snippet(text, terms("needle"), Redaction())
    assert "needle" in cut and "hunter2" not in cut and MASK in cut
    assert len(cut) <= SNIPPET_CHARS + 2


def _session(store: SQLiteEventStore, name: str, text: str) -> None:
    events = [requested(f"{name}-1", "shell", command=text), completed(f"{name}-1", text)]
    store.append(SessionId(name), events, expected_sequence=0, recorded_at=EPOCH).unwrap()


def test_verify_names_a_catalog_that_does_not_match_and_a_rebuild_repairs_it(
    tmp_path: Path,
) -> None:
    path = tmp_path / "store.sqlite"
    store = SQLiteEventStore(path)
    _session(store, "s", "git push --force")
    with sqlite3.connect(path) as connection:
        connection.execute("UPDATE session_catalog SET title = 'not what was said'")
    [fault] = store.verify_session(SessionId("s")).faults
    assert "catalog" in fault.message and not fault.in_events
    assert store.repair_index(SessionId("s")) is None
    assert store.verify_session(SessionId("s")).intact
    with sqlite3.connect(path) as connection:
        connection.execute("DELETE FROM session_activity")
    assert "activity" in store.verify_session(SessionId("s")).faults[0].message
    store.reindex()
    assert store.verify_session(SessionId("s")).intact
    assert [hit.sequence for hit in store.search('"push force"')] == [2, 1]
    store.close()


def test_the_words_of_replaced_sessions_are_let_go_of_when_they_outnumber_the_rest(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(sqlite_search, "SMALLEST_REWRITE", 4)
    path = tmp_path / "store.sqlite"
    store = SQLiteEventStore(path)
    _session(store, "kept", "alpha beta")

    def counts() -> dict[str, int]:
        with sqlite3.connect(path) as connection:
            return dict(
                connection.execute(
                    "SELECT name, value FROM store_settings WHERE name LIKE 'search_%'"
                ).fetchall()
            )

    for turn in range(6):
        said = conversation_event(Prompt(text=f"alpha round{turn}"))
        events = [StoredEvent(session_id=SessionId("moving"), sequence=1,
                              recorded_at=EPOCH + timedelta(seconds=turn), event=said)]  # fmt: skip
        store.import_replacing(["moving"], events).unwrap()
        assert store.repair_index(SessionId("moving")) is None  # a new number: one more let go
        left = counts()
        assert left["search_dead"] <= max(4, left["search_live"])
        hits = {(hit.session_id, hit.sequence) for hit in store.search("alpha")}
        assert hits == {("kept", 1), ("kept", 2), ("moving", 1)}
        assert [hit.snippet for hit in store.search(f"round{turn}")] == [f"alpha round{turn}"]
    store.close()
