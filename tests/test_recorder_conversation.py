"""A recorder keeps the conversation beside the calls: through a real SQLite store, a
call's lead-up shows the prompt and the words before it, the tokens add up, and the
tool fold passes over it."""

from __future__ import annotations

from pathlib import Path

import pytest

from correx_tools import (
    AssistantText,
    InvocationId,
    Prompt,
    Reasoning,
    SessionId,
    SessionRecorder,
    SQLiteEventStore,
    Tier,
    TokenUsage,
    ToolInvocationStatus,
    ToolProjector,
    ToolReceipt,
    ToolRequest,
    Usage,
    conversation_of,
    fold_events,
)
from correx_tools.core.replay.talk_summary import TalkSummary
from correx_tools.shell.replay.lead_up import lead_up_in

SESSION = SessionId("loop")
CALL = InvocationId("loop/read-1")


def test_a_recorded_conversation_leads_to_its_call_through_sqlite(tmp_path: Path) -> None:
    path = tmp_path / "session.sqlite"
    usage = TokenUsage(input=12, output=40, cache_read=3_000, cache_write=500)
    with SQLiteEventStore(path) as store:
        recorder = SessionRecorder(store, SESSION)
        recorder.say(Prompt(text="why does the test fail?")).unwrap()
        recorder.say(Reasoning(text="Read the test first.", model="claude-opus-4-6")).unwrap()
        recorder.say(AssistantText(text="Let me read it.", model="claude-opus-4-6")).unwrap()
        recorder.say(Usage(usage=usage, model="claude-opus-4-6", message_id="msg_1")).unwrap()
        requested = recorder.request(
            CALL, ToolRequest(tool_name="read_file", arguments={"path": "t.py"}), tier=Tier.AUTO
        ).unwrap()
        recorder.start(CALL).unwrap()
        recorder.complete(CALL, ToolReceipt(output="def test(): ...", exit_code=0)).unwrap()
    with SQLiteEventStore(path, read_only=True) as store:
        held = list(store.read(SESSION))
        led = lead_up_in(store, SESSION, requested.sequence)
    assert requested.sequence == 5
    assert led.prompt is not None and led.prompt.text == "why does the test fail?"
    assert [(w.kind, w.text, w.model) for w in led.before] == [
        ("reasoning", "Read the test first.", "claude-opus-4-6"),
        ("text", "Let me read it.", "claude-opus-4-6"),
    ]
    summary = TalkSummary().taking(stored.event for stored in held)
    assert summary.tokens == usage and summary.models == ("claude-opus-4-6",)
    assert sum(conversation_of(stored.event) is not None for stored in held) == 4
    # The tool fold passes over the conversation: the one call, completed.
    [record] = fold_events(ToolProjector(), held).unwrap().state.records()
    assert record.status is ToolInvocationStatus.COMPLETED


def test_saying_what_is_not_a_step_of_the_conversation_is_a_type_error(tmp_path: Path) -> None:
    # As a Prompt of a number is: the caller's mistake named, not an "unreachable" assertion.
    with SQLiteEventStore(tmp_path / "session.sqlite") as store:
        recorder = SessionRecorder(store, SESSION)
        with pytest.raises(TypeError, match="not str"):
            recorder.say("why does the test fail?")  # type: ignore[arg-type]
        assert list(store.read(SESSION)) == []
