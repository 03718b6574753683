"""The conversation's events: what they hold, that the tool fold passes over them, and that
every store, the index and ``verify`` carry them like any other event."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st
from returns.result import Success

from correx_tools import (
    AssistantText,
    DefaultToolRepository,
    EventReplayer,
    JsonlEventLog,
    OpaqueEvent,
    Prompt,
    Reasoning,
    SessionId,
    SQLiteEventStore,
    StoredEvent,
    TokenUsage,
    ToolInvocationStatus,
    ToolProjector,
    Usage,
    conversation_event,
    conversation_of,
    fold_events,
)
from correx_tools.shell.stores.port import EventStore

from .strategies import EPOCH, SESSION, completed, failed, requested, sessions, started, stored
from .test_cli import run_json

counts = st.integers(0, 10**9)
usages = st.builds(TokenUsage, input=counts, output=counts, cache_read=counts, cache_write=counts)
models = st.none() | st.sampled_from(["claude-opus-4-6", "gpt-5.1-codex"])
messages = st.one_of(
    st.builds(Prompt, text=st.text(max_size=20)),
    st.builds(AssistantText, text=st.text(max_size=20), model=models),
    st.builds(Reasoning, text=st.text(max_size=20), model=models),
    st.builds(Usage, usage=usages, model=models, message_id=st.none() | st.text(max_size=8)),
)


@given(messages)
def test_every_message_reads_back_from_its_event(message: object) -> None:
    event = conversation_event(message)  # type: ignore[arg-type]
    assert conversation_of(event) == message


def test_an_event_of_a_conversation_type_with_other_data_is_no_message() -> None:
    assert conversation_of(OpaqueEvent(type="conversation.prompt", version=1)) is None
    assert (
        conversation_of(OpaqueEvent(type="conversation.prompt", version=2, data={"text": "a"}))
        is None
    )
    assert (
        conversation_of(OpaqueEvent(type="conversation.usage", version=1, data={"input": -1}))
        is None
    )
    assert conversation_of(OpaqueEvent(type="note", version=1, data={"text": "a"})) is None
    assert conversation_of(requested("a")) is None


def test_counts_are_whole_numbers_at_least_zero() -> None:
    with pytest.raises(ValueError, match="input must be an int >= 0"):
        TokenUsage(input=-1)
    with pytest.raises(ValueError, match="output must be an int >= 0"):
        TokenUsage(output=True)
    assert (TokenUsage(input=1, cache_write=2) + TokenUsage(output=3)).total == 6


def _interleave(
    events: list[StoredEvent], said: list[object], places: list[int]
) -> list[StoredEvent]:
    """``events`` with the messages put in at the places given, each at the time of the
    event before it, all numbered again."""
    timed: list[tuple[datetime, object]] = [(s.recorded_at, s.event) for s in events]
    for message, place in zip(said, places, strict=False):
        at = min(place, len(timed))
        when = timed[at - 1][0] if at else EPOCH
        timed.insert(at, (when, conversation_event(message)))  # type: ignore[arg-type]
    return [
        StoredEvent(session_id=SESSION, sequence=number, recorded_at=when, event=event)
        for number, (when, event) in enumerate(timed, start=1)
    ]


@given(sessions(), st.lists(messages, max_size=8), st.lists(st.integers(0, 40), max_size=8))
def test_the_fold_with_the_conversation_is_the_fold_without_it(
    events: list[StoredEvent], said: list[object], places: list[int]
) -> None:
    talked = _interleave(events, said, places)
    for strict in (True, False):
        plain = fold_events(ToolProjector(), events, strict=strict)
        mixed = fold_events(ToolProjector(), talked, strict=strict)
        assert isinstance(plain, Success) == isinstance(mixed, Success)
        if isinstance(plain, Success):
            a, b = plain.unwrap(), mixed.unwrap()
            assert a.state == b.state
            assert [s.event for s, _ in a.quarantined] == [s.event for s, _ in b.quarantined]
        else:
            first, second = plain.failure(), mixed.failure()
            assert events[first.sequence - 1].event == talked[second.sequence - 1].event


SAID = [
    Prompt(text="fix the failing test, please"),
    Reasoning(text="The test reads a file first.", model="claude-opus-4-6"),
    AssistantText(text="Let me look at the test.", model="claude-opus-4-6"),
    Usage(usage=TokenUsage(input=3, output=13, cache_read=11515, cache_write=13835),
          model="claude-opus-4-6", message_id="msg_01"),
]  # fmt: skip


def _session() -> list[StoredEvent]:
    bodies = [
        conversation_event(SAID[0]),
        conversation_event(SAID[1]),
        conversation_event(SAID[2]),
        requested("a"),
        conversation_event(SAID[3]),
        started("a"),
        completed("a"),
        requested("b"),
        failed("b", "exit 2", recoverable=False),
    ]
    return stored(bodies, session="talk")


def test_every_store_keeps_the_conversation_in_its_place(store: EventStore) -> None:
    events = _session()
    assert isinstance(store.import_events(events), Success)
    read = list(store.read(SessionId("talk")))
    assert read == events
    assert [conversation_of(s.event) for s in read if conversation_of(s.event)] == SAID
    replay = EventReplayer(store).replay(SessionId("talk"), ToolProjector()).unwrap()
    assert replay.state == fold_events(ToolProjector(), events).unwrap().state
    assert len(replay.state) == 2


@pytest.mark.parametrize("kind", ["sqlite", "jsonl"])
def test_the_index_and_verify_carry_the_conversation(kind: str, tmp_path: Path) -> None:
    path = tmp_path / ("talk.sqlite" if kind == "sqlite" else "talk.jsonl")
    made = SQLiteEventStore(path) if kind == "sqlite" else JsonlEventLog(path)
    made.import_events(_session()).unwrap()
    summary = DefaultToolRepository(EventReplayer(made)).summary(SessionId("talk")).unwrap()
    assert summary.sequence == 9
    assert (
        summary.counts[ToolInvocationStatus.COMPLETED],
        summary.counts[ToolInvocationStatus.FAILED],
    ) == (1, 1)
    close = getattr(made, "close", None)
    if close is not None:
        close()
    document = run_json("verify", str(path))
    assert document["intact"] is True
    assert document["sessions"][0]["events"] == 9
