"""A session's conversation read alone: every store gives the same events as a read of
the whole session picks out, a SQL store finds them through an index of their own, and a
session recorded by this library shows its title, models and tokens like an imported one.
"""

from __future__ import annotations

import itertools
import shutil
import sqlite3
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Success

from correx_tools import (
    AssistantText,
    InvocationId,
    OpaqueEvent,
    Prompt,
    SessionId,
    SessionRecorder,
    SQLiteEventStore,
    StoredEvent,
    Tier,
    TokenUsage,
    ToolReceipt,
    ToolRequest,
    Usage,
    conversation_event,
)
from correx_tools.shell.stores.port import EventStore
from correx_tools.shell.stores.said import conversation_events, holds_conversation, is_said
from correx_tools.shell.stores.sql.layout import SAID

from .serving import Served
from .stores import postgres_index
from .strategies import EPOCH, completed, requested, started
from .test_cli import run_json
from .test_conversation import messages

_names = itertools.count()
USAGE = TokenUsage(input=12, output=40, cache_read=3_000, cache_write=500)


def _session(steps: list[str], said: list[object], places: list[int]) -> list[StoredEvent]:
    """A new session of tool events (and another agent's event of its own type), with the
    messages put in at ``places``; each call's id its own."""
    name = SessionId(f"s{next(_names)}")
    tool = {"requested": requested, "started": started, "completed": completed}
    bodies: list[object] = [
        OpaqueEvent(type="agent.note", version=1) if step == "note" else tool[step](f"{name}/{n}")
        for n, step in enumerate(steps)
    ]
    for message, place in zip(said, places, strict=False):
        bodies.insert(min(place, len(bodies)), conversation_event(message))  # type: ignore[arg-type]
    return [
        StoredEvent(session_id=name, sequence=n, recorded_at=EPOCH, event=body)
        for n, body in enumerate(bodies, start=1)
    ]


@settings(suppress_health_check=[HealthCheck.function_scoped_fixture], max_examples=30)
@given(
    st.lists(st.sampled_from(["requested", "started", "completed", "note"]), max_size=20),
    st.lists(messages, max_size=6),
    st.lists(st.integers(0, 30), max_size=6),
    st.integers(0, 30),
)
def test_every_store_reads_the_conversation_a_whole_read_picks_out(
    store: EventStore, steps: list[str], said: list[object], places: list[int], after: int
) -> None:
    session = _session(steps, said, places)
    if not session:
        return
    assert isinstance(store.import_events(session), Success)
    name = session[0].session_id
    whole = [stored for stored in store.read(name) if is_said(stored)]
    with conversation_events(store, name) as found:
        assert list(found) == whole
    with conversation_events(store, name, after=after) as found:
        assert list(found) == [stored for stored in whole if stored.sequence > after]
    assert holds_conversation(store, name) == bool(whole)


def _recorded(path: Path, *, talk: bool) -> None:
    """A session ``loop`` with one call, and (``talk``) a prompt, words and usage before it;
    a session ``quiet`` with one call and nothing said."""
    with SQLiteEventStore(path) as store:
        recorder = SessionRecorder(store, SessionId("loop"))
        if talk:
            recorder.say(Prompt(text="why does the test fail?\nit did not yesterday")).unwrap()
            recorder.say(AssistantText(text="Let me read it.", model="claude-opus-4-6")).unwrap()
            recorder.say(Usage(usage=USAGE, model="claude-opus-4-6", message_id="m1")).unwrap()
        for name in ("loop", "quiet"):
            recorder = SessionRecorder(store, SessionId(name))
            call = InvocationId(f"{name}/read-1")
            request = ToolRequest(tool_name="read_file", arguments={"path": "t.py"})
            recorder.request(call, request, tier=Tier.AUTO).unwrap()
            recorder.start(call).unwrap()
            recorder.complete(call, ToolReceipt(output="def test(): ...", exit_code=0)).unwrap()


def test_a_recorded_session_shows_its_title_models_and_tokens(tmp_path: Path) -> None:
    path = tmp_path / "loop.sqlite"
    _recorded(path, talk=True)
    rows = {row["session_id"]: row for row in run_json("sessions", str(path))["sessions"]}
    loop, quiet = rows["loop"], rows["quiet"]
    assert (loop["title"], loop["title_from"]) == ("why does the test fail?", "prompt")
    assert loop["models"] == ["claude-opus-4-6"] and loop["said"] == 2
    assert loop["tokens"] == {"input": 12, "output": 40, "cache_read": 3_000,
                              "cache_write": 500, "total": 3_552}  # fmt: skip
    assert loop["agent"] is None  # recorded by this library, not imported
    # A session that said nothing has no conversation to speak of.
    assert (quiet["title"], quiet["tokens"], quiet["said"]) == (None, None, None)
    stats = run_json("stats", str(path), "loop")
    assert stats["tokens"]["total"]["total"] == 3_552
    # The usage before the call is its share.
    assert stats["tokens"]["calls"][0]["tokens"]["total"] == 3_552
    assert run_json("stats", str(path), "quiet")["tokens"] is None
    server = Served(path)
    try:
        listed = {row["session_id"]: row for row in server.answer("/api/v1/sessions")["sessions"]}
    finally:
        server.stop()
    assert listed["loop"]["title"] == "why does the test fail?"
    assert listed["loop"]["tokens"]["total"] == 3_552
    assert listed["quiet"]["said"] is None


def _plan(path: Path) -> str:
    with sqlite3.connect(path) as connection:
        rows = connection.execute(
            "EXPLAIN QUERY PLAN SELECT sequence, recorded_at, type, version, data FROM events "
            f"WHERE session_id = ? AND sequence > ? AND {SAID} ORDER BY sequence LIMIT ?",
            ("quiet", 0, 100),
        ).fetchall()
    return " ".join(str(row[-1]) for row in rows)


def test_a_sqlite_store_finds_the_conversation_through_its_own_index(tmp_path: Path) -> None:
    path = tmp_path / "loop.sqlite"
    _recorded(path, talk=False)
    assert "events_said" in _plan(path)


def test_a_store_made_before_the_index_is_read_as_it_is_and_gains_it_on_writing(
    tmp_path: Path,
) -> None:
    path = tmp_path / "loop.sqlite"
    _recorded(path, talk=True)
    with sqlite3.connect(path) as connection:  # as a store of this layout made before it
        connection.execute("DROP INDEX events_said")
    before = path.read_bytes()
    with SQLiteEventStore(path, read_only=True) as store:
        assert holds_conversation(store, SessionId("loop"))
        assert not holds_conversation(store, SessionId("quiet"))
    assert path.read_bytes() == before  # a read writes nothing, the index included
    assert "events_said" not in _plan(path)
    [loop] = [s for s in run_json("sessions", str(path))["sessions"] if s["session_id"] == "loop"]
    assert loop["title"] == "why does the test fail?"
    with SQLiteEventStore(path) as store:  # the first writer adds it, nothing rebuilt
        assert [s.sequence for s in store.read(SessionId("loop"))] == [1, 2, 3, 4, 5, 6]
    assert "events_said" in _plan(path)
    copy = tmp_path / "copy.sqlite"
    shutil.copy(path, copy)
    assert run_json("verify", str(copy))["intact"] is True


def test_a_postgres_store_made_before_the_index_gains_it_on_writing(
    postgres_dsn: str, postgres_schema: str
) -> None:
    from correx_tools import PostgresEventStore  # noqa: PLC0415

    def present(*, drop: bool = False) -> bool:
        return postgres_index(postgres_dsn, postgres_schema, "correx_events_said", drop=drop)

    with PostgresEventStore(postgres_dsn, schema=postgres_schema) as store:
        recorder = SessionRecorder(store, SessionId("loop"))
        recorder.say(Prompt(text="why does the test fail?")).unwrap()
    assert present()
    assert not present(drop=True)
    with PostgresEventStore(postgres_dsn, schema=postgres_schema, read_only=True) as store:
        assert holds_conversation(store, SessionId("loop"))
    assert not present()
    with PostgresEventStore(postgres_dsn, schema=postgres_schema) as store:
        assert holds_conversation(store, SessionId("loop"))
    assert present()


@pytest.mark.parametrize("talk", [True, False])
def test_a_session_holds_a_conversation_only_where_something_was_said(
    tmp_path: Path, talk: bool
) -> None:
    path = tmp_path / "loop.sqlite"
    _recorded(path, talk=talk)
    with SQLiteEventStore(path, read_only=True) as store:
        assert holds_conversation(store, SessionId("loop")) is talk
        assert holds_conversation(store, SessionId("quiet")) is False
