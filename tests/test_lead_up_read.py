"""What led to a call, read from a store as the conversation's events alone (with a
stand-in for the other events between them), is what the rule makes of every event
before the call: on a real SQLite file (its conversation index), a JSONL log and in
memory (a read of every event), drawn sessions, each call, windows of every size; and on
PostgreSQL for one session."""

from __future__ import annotations

import tempfile
from pathlib import Path

from hypothesis import example, given, settings
from hypothesis import strategies as st

from correx_tools import (
    AssistantText,
    InMemoryEventStore,
    JsonlEventLog,
    OpaqueEvent,
    PostgresEventStore,
    Prompt,
    Reasoning,
    SQLiteEventStore,
    TokenUsage,
    ToolInvocationRequestedEvent,
    Usage,
    conversation_event,
)
from correx_tools.core.replay.lead_up import LeadUp, lead_up
from correx_tools.core.tools.ids import SessionId
from correx_tools.shell.replay.lead_up import lead_up_in
from correx_tools.shell.stores.port import EventStore
from correx_tools.shell.stores.said import conversation_events, is_said

from .strategies import completed, requested

SESSION = SessionId("s")

# One letter per event, so a failing example reads as a string.
_EVENTS = {
    "p": lambda n: conversation_event(Prompt(text=f"prompt {n}")),
    "t": lambda n: conversation_event(AssistantText(text=f"text {n}", model="m")),
    "r": lambda n: conversation_event(Reasoning(text=f"reasoning {n}")),
    "u": lambda n: conversation_event(Usage(usage=TokenUsage(output=n))),
    # A conversation's tag with data its reader does not know: not words, so it ends a run.
    "x": lambda n: OpaqueEvent(type="conversation.text", version=7, data={"n": n}),
    "c": lambda n: requested(f"call-{n}"),
    "e": lambda n: completed(f"call-{n - 1}"),
}


def events_of(letters: str) -> list[object]:
    """The session the letters spell: ``c`` requests a call, ``e`` ends the one before."""
    return [_EVENTS[letter](n) for n, letter in enumerate(letters)]


def expected(store: EventStore, request: int, window: int) -> LeadUp:
    """The rule over every event of the window before the request, read in order."""
    after = max(0, request - 1 - window)
    before = [(s.sequence, s.event) for s in store.read(SESSION, after=after)]
    walked = [(sequence, event) for sequence, event in before if sequence < request]
    found = lead_up(reversed(walked), limit=len(walked) + 1)
    whole = found.prompt is not None or after == 0
    return LeadUp(prompt=found.prompt, before=found.before, whole=whole)


def each_call(store: EventStore) -> list[int]:
    return [
        s.sequence for s in store.read(SESSION) if isinstance(s.event, ToolInvocationRequestedEvent)
    ]


@settings(max_examples=60, deadline=None)
@given(
    letters=st.text(alphabet="ptrux" + "ccce", min_size=1, max_size=40),
    window=st.integers(min_value=1, max_value=45),
)
@example(letters="ptcutrc", window=45)  # words, a call, usage, words: the last run only
@example(letters="putucc", window=2)  # the window ends before the prompt
@example(letters="ptxtc", window=45)  # unreadable words end the run
def test_the_conversation_read_alone_makes_what_every_event_makes(
    letters: str, window: int
) -> None:
    events = events_of(letters + "c")  # at least one call
    with tempfile.TemporaryDirectory() as directory:
        stores: list[EventStore] = [
            InMemoryEventStore(),
            SQLiteEventStore(Path(directory) / "s.sqlite"),
            JsonlEventLog(Path(directory) / "s.jsonl"),
        ]
        for store in stores:
            holds_the_rule(store, events, [window])


def holds_the_rule(store: EventStore, events: list[object], windows: list[int]) -> None:
    """Every call's lead-up read from ``store`` is the rule over every event before it."""
    try:
        store.append(SESSION, events, expected_sequence=0)
        for request in each_call(store):
            # The bound alone, where the event before the call is the conversation's too.
            with conversation_events(store, SESSION, after=1, before=request - 1) as said:
                bounded = [s.sequence for s in said]
            assert bounded == [
                s.sequence
                for s in store.read(SESSION, after=1)
                if s.sequence < request - 1 and is_said(s)
            ]
            for window in windows:
                found = lead_up_in(store, SESSION, request, window=window)
                assert found == expected(store, request, window), (request, window)
    finally:
        close = getattr(store, "close", None)
        if close is not None:
            close()


def test_a_postgres_store_reads_the_lead_up_through_its_conversation_index(
    postgres_dsn: str, postgres_schema: str
) -> None:
    events = events_of("ptcutrcpuxtcrrccptttuc")
    store = PostgresEventStore(postgres_dsn, schema=postgres_schema)
    holds_the_rule(store, events, [1, 3, 5, 45])
