"""The conversation read from every other format's real samples: prompts found by their
words, the words before a call in its lead-up, token totals that are a sum over the file's
own usage records (computed here, independently of the reader), and the tool fold the same
with the conversation as without it."""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from correx_tools import (
    AssistantText,
    InMemoryEventStore,
    Prompt,
    Reasoning,
    SessionId,
    TokenUsage,
    ToolInvocationRequestedEvent,
    ToolProjector,
    Usage,
    conversation_of,
    fold_events,
    import_transcript,
)
from correx_tools.core.replay.lead_up import LeadUp
from correx_tools.shell.replay.lead_up import lead_up_in

from .test_conversation_imports import said, total
from .transcript_samples import DATA

GEMINI = DATA / "gemini-cli" / "session-2025-11-18T06-42-8c2d41e7.jsonl"
GEMINI_JSON = GEMINI.with_suffix(".json")


def imported(path: Path, **options: Any) -> tuple[InMemoryEventStore, SessionId]:
    store = InMemoryEventStore()
    done = import_transcript(path, store, **options).unwrap()
    return store, done.session_id


def lead_up_of(path: Path, call_id: str) -> LeadUp:
    """What led to the call ``call_id`` (the end of its invocation id) of the file's session."""
    store, session = imported(path)
    for stored in store.read(session):
        event = stored.event
        if isinstance(event, ToolInvocationRequestedEvent) and event.invocation_id.endswith(
            f"/{call_id}"
        ):
            return lead_up_in(store, session, stored.sequence)
    raise AssertionError(f"no call {call_id}")


def words(led: LeadUp) -> list[tuple[str, str]]:
    return [(w.kind, w.text) for w in led.before]


def prompts(messages: list[object]) -> list[str]:
    return [m.text for m in messages if isinstance(m, Prompt)]


def models(messages: list[object]) -> set[str | None]:
    return {m.model for m in messages if isinstance(m, AssistantText | Reasoning | Usage)}


def records(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        yield json.loads(line)


# --- Gemini CLI -------------------------------------------------------------------------


def gemini_messages(path: Path) -> list[dict[str, Any]]:
    """The chat's messages as its writer left them: each id's last copy, where it first
    appeared, less what a rewind dropped (the ``.json`` form is the list itself)."""
    if path.suffix == ".json":
        listed: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["messages"]
        return listed
    kept: dict[str, dict[str, Any]] = {}
    for record in list(records(path))[1:]:
        if "$rewindTo" in record:
            ids = list(kept)
            if record["$rewindTo"] in kept:
                for dropped in ids[ids.index(record["$rewindTo"]) :]:
                    del kept[dropped]
        elif "id" in record:
            kept[record["id"]] = record
    return list(kept.values())


@pytest.mark.parametrize("path", [GEMINI, GEMINI_JSON], ids=["jsonl", "json"])
def test_gemini_tokens_are_the_sum_of_each_messages_last_counts(path: Path) -> None:
    messages = said(path)
    counted = [m["tokens"] for m in gemini_messages(path) if m.get("tokens")]
    assert counted  # the sample records usage
    usage = total(messages)
    # Gemini's own total is its prompt (cached included), output, thoughts and tool tokens.
    assert usage.total == sum(t["total"] for t in counted)
    assert usage.cache_read == sum(t["cached"] for t in counted)
    assert usage.output == sum(t["output"] + t["thoughts"] for t in counted)
    assert usage.cache_write == 0
    assert models(messages) == {"gemini-2.5-pro"}
    assert sum(isinstance(m, Usage) for m in messages) == len(counted)


def test_gemini_prompts_words_and_thoughts_are_read_and_lead_to_the_calls() -> None:
    messages = said(GEMINI)
    asked = [t["text"] for m in gemini_messages(GEMINI) if m["type"] == "user" for t in m["content"]]
    # The rewound prompt ("πρώτα σβήσε το target/") is gone, like its call.
    assert prompts(messages) == asked and len(asked) == 2
    assert not any("target/" in p for p in prompts(messages))
    assert Reasoning(text="Plan\nReproduce, then fix.", model="gemini-2.5-pro") in messages
    led = lead_up_of(GEMINI, "cargo_check-1763448139-4")
    assert led.prompt is not None and "athina" in led.prompt.text
    assert words(led) == [
        ("reasoning", "Plan\nReproduce, then fix."),
        ("text", "The accented ή is not mapped. Fixing it."),
    ]
    assert said(GEMINI_JSON) == messages


# --- every format -----------------------------------------------------------------------

FORMATS = [GEMINI, GEMINI_JSON]


@pytest.mark.parametrize("path", FORMATS, ids=lambda p: p.parent.name + "/" + p.name[-12:])
def test_the_fold_of_a_sample_is_the_same_with_its_conversation(path: Path) -> None:
    with_talk, session = imported(path)
    without, _ = imported(path, conversation=False)
    talked = list(with_talk.read(session))
    assert any(conversation_of(s.event) for s in talked)
    plain = fold_events(ToolProjector(), list(without.read(session))).unwrap()
    mixed = fold_events(ToolProjector(), talked).unwrap()
    assert plain.state == mixed.state
