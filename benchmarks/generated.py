"""Many generated sessions for a database store's catalog: each a described Claude Code
session of turns (a prompt, the assistant's words, a usage record, and a shell call with
its output), over forty projects, four models and sixty days, the words drawn from a
vocabulary of 5,000 made-up words."""

from __future__ import annotations

import random
import time
import uuid
from collections.abc import Iterator
from datetime import UTC, datetime, timedelta

from correx_tools import (
    InvocationId,
    SessionId,
    StoredEvent,
    Tier,
    ToolExecutionCompletedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolReceipt,
    ToolRequest,
)
from correx_tools.core.catalog.searched import text_of
from correx_tools.core.catalog.words import words
from correx_tools.core.lifecycle.conversation import (
    AssistantText,
    Prompt,
    TokenUsage,
    Usage,
    conversation_event,
)
from correx_tools.core.lifecycle.description import About, description_event
from correx_tools.shell.stores.sql.store import SqlEventStore

START = datetime(2026, 9, 1, tzinfo=UTC)
MODELS = ("claude-sonnet-4-5", "claude-opus-4-1", "claude-haiku-4-5", "gpt-5")
EVENTS_PER_TURN = 7
BATCH = 20_000
"""Events imported at a time."""


def vocabulary(rng: random.Random, size: int = 5_000) -> list[str]:
    """Made-up words of 3 to 10 letters."""
    letters = "abcdefghijklmnopqrstuvwxyz"
    return ["".join(rng.choice(letters) for _ in range(rng.randint(3, 10))) for _ in range(size)]


def many_sessions(sessions: int, events: int, seed: int = 55) -> Iterator[list[StoredEvent]]:
    """``sessions`` generated sessions of about ``events`` events in all (see the module
    docstring), one list a session."""
    rng = random.Random(seed)
    vocab = vocabulary(rng)
    each = max(EVENTS_PER_TURN + 1, events // sessions)

    def said(count: int) -> str:
        return " ".join(rng.choice(vocab) for _ in range(count))

    for _ in range(sessions):
        session = SessionId(str(uuid.UUID(int=rng.getrandbits(128))))
        at = START + timedelta(minutes=rng.randrange(60 * 24 * 60))
        model = rng.choice(MODELS)
        project = f"/home/dev/project-{rng.randrange(40)}"
        payloads: list[object] = [
            description_event("claude-code", About(cwd=project, started_at=at))
        ]
        call = 0
        while len(payloads) < each:
            invocation = InvocationId(f"{session}-{call}")
            call += 1
            usage = TokenUsage(input=rng.randrange(5_000), output=rng.randrange(2_000),
                               cache_read=rng.randrange(50_000))  # fmt: skip
            payloads += [
                conversation_event(Prompt(text=said(rng.randint(5, 30)))),
                conversation_event(AssistantText(text=said(rng.randint(10, 60)), model=model)),
                conversation_event(Usage(usage=usage, model=model)),
                ToolInvocationRequestedEvent(
                    invocation_id=invocation,
                    tool_name="bash",
                    tier=Tier.AUTO,
                    request=ToolRequest(
                        tool_name="bash", arguments={"command": "run " + said(rng.randint(2, 8))}
                    ),
                ),
                ToolExecutionStartedEvent(invocation_id=invocation),
                ToolExecutionCompletedEvent(
                    invocation_id=invocation,
                    receipt=ToolReceipt(
                        output=said(rng.randint(10, 80)), exit_code=0 if rng.random() > 0.05 else 1
                    ),
                ),
            ]
        del payloads[each:]
        yield [
            StoredEvent(session_id=session, sequence=n, recorded_at=at + timedelta(seconds=3 * n),
                        event=payload)
            for n, payload in enumerate(payloads, 1)
        ]  # fmt: skip


def fill(
    store: SqlEventStore | None, sessions: int, events: int
) -> tuple[float, int, list[list[str]]]:
    """The seconds the import took, the bytes of text indexed (every searched value's
    UTF-8 bytes, `text_of`), and a sample of the values' words (for the search's
    questions); with no ``store``, the same sessions counted only (a store filled by an
    earlier run)."""
    text_bytes, sample = 0, []
    rng = random.Random(7)
    started = time.perf_counter()
    chunk: list[StoredEvent] = []
    for session in many_sessions(sessions, events):
        for stored in session:
            found = text_of(stored.event)
            if found is not None:
                text_bytes += len(found[2].encode())
                # One value in a thousand, and at least a few of a tiny store's.
                if rng.random() < max(0.001, 20 / events):
                    sample.append(words(found[2]))
        if store is None:
            continue
        chunk += session
        if len(chunk) >= BATCH:
            store.import_events(chunk).unwrap()
            chunk = []
    if chunk and store is not None:
        store.import_events(chunk).unwrap()
    return time.perf_counter() - started, text_bytes, sample
