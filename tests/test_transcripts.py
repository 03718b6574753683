"""Importing the transcripts real agents write: every sample format, its counts, and its errors.

The samples in ``tests/data/transcripts/`` are real (see each directory's
PROVENANCE.txt); the counts below were taken from the files themselves (tool_use
blocks and their results, OpenHands actions and observations, trajectory steps).
"""

from __future__ import annotations

import json
from collections import Counter
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from returns.result import Failure

from correx_tools import (
    EventReplayer,
    EventStore,
    InMemoryEventStore,
    OpaqueEvent,
    SessionId,
    SQLiteEventStore,
    StoredEvent,
    Tier,
    ToolExecutionCompletedEvent,
    ToolExecutionRejectedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolProjector,
    TranscriptError,
    conversation_of,
    import_transcript,
)
from correx_tools.core.lifecycle.outcome import outcome_of
from correx_tools.shell.transcripts.importing.options import ImportOptions
from correx_tools.shell.transcripts.importing.tiers import Assignment
from correx_tools.shell.transcripts.recognising import DOCUMENT_READERS, LINE_READERS, parse

from .commands import Ran, correx

DATA = Path(__file__).parent / "data" / "transcripts"

SAMPLES = {
    "claude-code/short_two_rejections.jsonl": (
        "claude-code", 2, {"rejected": 2}, {"Bash": 1, "Glob": 1},
    ),
    "claude-code/session_4d5611e5_subagent_a2898e3.jsonl": (
        "claude-code", 33, {"completed": 25, "failed": 8},
        {"Read": 16, "Glob": 10, "Bash": 5, "Grep": 2},
    ),
    "openhands/runtime_test_basic.json": (
        "openhands", 2, {"completed": 1, "requested": 1}, {"str_replace_editor": 1, "finish": 1},
    ),
    "openhands/multi_swe_bench_ponylang__ponyc-4595.json": (
        "openhands", 23, {"completed": 22, "requested": 1},
        {"execute_bash": 13, "str_replace_editor": 8, "think": 1, "finish": 1},
    ),
    "swe-agent/ctf_i_got_id_demo.traj": (
        "swe-agent", 21, {"completed": 21}, {"curl": 18, "create": 1, "edit": 1, "submit": 1},
    ),
    "swe-agent/marshmallow-1867_function_calling.traj": (
        "swe-agent", 13, {"completed": 13},
        {"bash": 6, "open": 2, "create": 1, "insert": 1, "find_file": 1, "edit": 1, "submit": 1},
    ),
    "openai-chat/marshmallow-1867_history.json": (
        "openai-chat", 13, {"completed": 13},
        {"bash": 6, "open": 2, "create": 1, "insert": 1, "find_file": 1, "edit": 1, "submit": 1},
    ),
    "anthropic-messages/subagent_a2898e3_messages.json": (
        "anthropic-messages", 33, {"completed": 25, "failed": 8},
        {"Read": 16, "Glob": 10, "Bash": 5, "Grep": 2},
    ),
}  # fmt: skip


def tool_events(store: EventStore, session: SessionId) -> list[StoredEvent]:
    """The session's events after the first, which describes the imported session, but for
    the conversation around the calls and how the run ended (the second, where said)."""
    first, *rest = store.read(session)
    assert isinstance(first.event, OpaqueEvent) and first.event.type == "correx.session.described"
    assert first.sequence == 1
    if rest and outcome_of(rest[0].event) is not None:
        rest = rest[1:]
    return [stored for stored in rest if conversation_of(stored.event) is None]


def tools_of(store: EventStore, session: SessionId) -> Counter[str]:
    return Counter(
        stored.event.tool_name
        for stored in store.read(session)
        if isinstance(stored.event, ToolInvocationRequestedEvent)
    )


@pytest.mark.parametrize("sample", sorted(SAMPLES))
def test_each_sample_imports_with_the_counts_of_its_transcript(sample: str, tmp_path: Path) -> None:
    fmt, invocations, statuses, tools = SAMPLES[sample]
    with SQLiteEventStore(tmp_path / "imported.sqlite") as store:
        done = import_transcript(DATA / sample, store).unwrap()
        assert done.format == fmt
        assert done.invocations == invocations
        assert {k: v for k, v in done.statuses.items() if v} == statuses
        assert done.in_flight == statuses.get("requested", 0) + statuses.get("started", 0)
        assert tools_of(store, done.session_id) == tools
        # A legal history: the strict replay goes through, to the same counts.
        replay = EventReplayer(store).replay(done.session_id, ToolProjector()).unwrap()
        assert len(replay.state) == invocations
        assert replay.last_sequence == done.events
        # Importing it again writes nothing and says so.
        again = import_transcript(DATA / sample, store).unwrap()
        assert again.already_imported and again.events == 0
        assert store.count() == done.events


def test_every_store_kind_takes_an_import(store: EventStore) -> None:
    sample = DATA / "claude-code" / "session_4d5611e5_subagent_a2898e3.jsonl"
    done = import_transcript(sample, store, ImportOptions(conversation=False)).unwrap()
    assert done.events == 100  # the description, then 33 calls' 99 events
    assert (
        import_transcript(sample, store, ImportOptions(conversation=False))
        .unwrap()
        .already_imported
    )
    assert len(tool_events(store, done.session_id)) == 99


def test_ids_are_namespaced_by_the_session_and_stable(tmp_path: Path) -> None:
    sample = DATA / "claude-code" / "short_two_rejections.jsonl"
    first, second = InMemoryEventStore(), InMemoryEventStore()
    a = import_transcript(sample, first).unwrap()
    b = import_transcript(sample, second, session="renamed").unwrap()
    ids_a = [e.event.invocation_id for e in tool_events(first, a.session_id)]  # type: ignore[attr-defined]
    ids_b = [e.event.invocation_id for e in tool_events(second, b.session_id)]  # type: ignore[attr-defined]
    assert ids_a[0] == f"{a.session_id}/toolu_0116Hyi5v8ut7Ffb7d8qV1Sc"
    assert [i.split("/", 1)[1] for i in ids_a] == [i.split("/", 1)[1] for i in ids_b]
    assert all(i.startswith("renamed/") for i in ids_b)


def test_claude_code_rejections_starts_and_policy_tiers() -> None:
    store = InMemoryEventStore()
    done = import_transcript(DATA / "claude-code" / "short_two_rejections.jsonl", store).unwrap()
    events = tool_events(store, done.session_id)
    kinds = [type(e.event).__name__ for e in events]
    # Bash had a PreToolUse hook record: it started, then the user rejected it. Glob never ran.
    assert kinds == [
        "ToolInvocationRequestedEvent", "ToolExecutionStartedEvent",
        "ToolInvocationRequestedEvent", "ToolExecutionRejectedEvent",
        "ToolExecutionRejectedEvent",
    ]  # fmt: skip
    started = events[1]
    assert started.recorded_at == datetime(2026, 2, 10, 21, 12, 1, 124000, tzinfo=UTC)
    tiers = {e.event.tool_name: e.event.tier for e in events
             if isinstance(e.event, ToolInvocationRequestedEvent)}  # fmt: skip
    assert tiers == {"Bash": Tier.ELEVATED, "Glob": Tier.AUTO}
    rejected = events[3].event
    assert isinstance(rejected, ToolExecutionRejectedEvent)
    assert "doesn't want to proceed" in rejected.reason


def write(path: Path, records: list[object]) -> Path:
    path.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
    return path


def claude(kind: str, at: str, content: list[object], **extra: object) -> dict[str, object]:
    role = "assistant" if kind == "assistant" else "user"
    return {"type": kind, "sessionId": "s-1", "uuid": at, "timestamp": at,
            "message": {"role": role, "content": content}, **extra}  # fmt: skip


def test_an_exit_code_result_is_a_completed_call_with_that_code(tmp_path: Path) -> None:
    path = write(tmp_path / "t.jsonl", [
        claude("assistant", "2026-01-01T10:00:00Z",
               [{"type": "tool_use", "id": "t1", "name": "Bash", "input": {"command": "false"}}]),
        claude("user", "2026-01-01T10:00:02Z",
               [{"type": "tool_result", "tool_use_id": "t1", "is_error": True,
                 "content": "Exit code 2\nboom"}]),
    ])  # fmt: skip
    store = InMemoryEventStore()
    done = import_transcript(
        path, store, ImportOptions(tiering=lambda name, args: Assignment(Tier.CONFIRM))
    ).unwrap()
    events = tool_events(store, done.session_id)
    completed = events[-1].event
    assert isinstance(completed, ToolExecutionCompletedEvent)
    assert completed.receipt.exit_code == 2
    assert completed.receipt.output == "Exit code 2\nboom"
    assert completed.receipt.metadata["source_format"] == "claude-code"
    assert completed.receipt.metadata["tool_use_id"] == "t1"
    assert events[0].event.tier is Tier.CONFIRM  # type: ignore[attr-defined]
    # No start recorded: it is synthesized at the request's time.
    assert isinstance(events[1].event, ToolExecutionStartedEvent)
    assert events[1].recorded_at == events[0].recorded_at


def test_openhands_times_are_utc_and_an_error_without_cause_is_a_rejected_call(
    tmp_path: Path,
) -> None:
    history = [
        {"id": 1, "timestamp": "2025-01-27T22:45:13.764487", "source": "agent",
         "action": "run", "args": {"command": "ls", "thought": "look"},
         "tool_call_metadata": {"function_name": "execute_bash", "tool_call_id": "c1"}},
        {"id": 2, "timestamp": "2025-01-27T22:45:14", "source": "agent", "cause": 1,
         "observation": "run", "content": "a b", "extras": {"metadata": {"exit_code": 3}}},
        {"id": 3, "timestamp": "2025-01-27T22:45:15", "source": "agent",
         "observation": "error", "content": "Parameter 'command' is expected"},
    ]  # fmt: skip
    path = tmp_path / "oh.json"
    path.write_text(json.dumps({"history": history}))
    store = InMemoryEventStore()
    done = import_transcript(path, store).unwrap()
    assert done.format == "openhands"
    events = tool_events(store, done.session_id)
    assert events[0].recorded_at == datetime(2025, 1, 27, 22, 45, 13, 764487, tzinfo=UTC)
    assert events[0].event.request.arguments == {"command": "ls"}  # type: ignore[attr-defined]
    assert events[2].event.receipt.exit_code == 3  # type: ignore[attr-defined]
    assert [type(e.event).__name__ for e in events[3:]] == [
        "ToolInvocationRequestedEvent", "ToolExecutionRejectedEvent",
    ]  # fmt: skip
    assert events[3].event.invocation_id == "oh/error-3"  # type: ignore[attr-defined]


def test_swe_agent_legacy_steps_get_derived_ids_and_one_second_each() -> None:
    store = InMemoryEventStore()
    done = import_transcript(DATA / "swe-agent" / "ctf_i_got_id_demo.traj", store).unwrap()
    events = tool_events(store, done.session_id)
    first = events[0].event
    assert isinstance(first, ToolInvocationRequestedEvent)
    assert first.invocation_id == "ctf_i_got_id_demo/step-1"
    assert first.request.arguments == {"command": "curl http://web.chal.csaw.io:8000\n"}
    origin = datetime(2000, 1, 1, tzinfo=UTC)
    assert events[0].recorded_at == origin
    assert events[2].recorded_at == origin + timedelta(seconds=1)
    assert events[3].recorded_at == origin + timedelta(seconds=1)  # the next step starts then
    assert events[2].event.receipt.metadata["exit_code_known"] == "false"  # type: ignore[attr-defined]


def test_a_reused_call_id_gets_a_numbered_id() -> None:
    store = InMemoryEventStore()
    sample = DATA / "swe-agent" / "marshmallow-1867_function_calling.traj"
    done = import_transcript(sample, store).unwrap()
    ids = [e.event.invocation_id for e in store.read(done.session_id)
           if isinstance(e.event, ToolInvocationRequestedEvent)]  # fmt: skip
    assert len(ids) == len(set(ids)) == 13
    assert f"{done.session_id}/call_5iDdbOYybq7L19vqXmR0DPaU#2" in ids


def failure(path: Path, store: EventStore | None = None, **options: object) -> TranscriptError:
    result = import_transcript(path, store or InMemoryEventStore(), **options)  # type: ignore[arg-type]
    assert isinstance(result, Failure), result
    return result.failure()


def test_a_file_of_no_known_format_names_the_formats_tried(tmp_path: Path) -> None:
    path = tmp_path / "notes.json"
    path.write_text(json.dumps({"hello": "world"}))
    error = failure(path)
    for name in ("claude-code", "openhands", "swe-agent", "openai-chat", "anthropic-messages"):
        assert name in str(error)
    assert str(error).startswith(f"{path}: not a transcript of a known format")


def test_formats_are_tried_in_their_ranks_order_the_more_particular_first() -> None:
    # Each format's record says where it is tried among the formats of one shape: a file
    # that two tests would take goes to the format tried first, as it always has.
    assert [name for name, _ in LINE_READERS] == [
        "codex",
        "gemini-cli",
        "mcp",
        "goose",
        "claude-code",
    ]
    assert [name for name, _ in DOCUMENT_READERS] == [
        "opencode",
        "goose",
        "gemini-cli",
        "cline",
        "swe-agent",
        "openhands",
        "mini-swe-agent",
        "openhands-completion",  # before openai-chat: its messages are a chat list too
        "openai-chat",
        "anthropic-messages",
    ]
    both = {"sessionId": "s", "projectHash": "h", "working_dir": "/w", "description": "d"}
    assert parse(json.dumps(both).encode(), "auto", "n").format == "gemini-cli"
    both = {
        "sessionId": "s",
        "projectHash": "h",
        "messages": [],
        "working_dir": "/w",
        "conversation": [],
    }
    assert parse(json.dumps(both).encode(), "auto", "n").format == "goose"


def test_a_damaged_line_and_a_broken_pairing_are_named_by_line(tmp_path: Path) -> None:
    good = claude("assistant", "2026-01-01T10:00:00Z",
                  [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}])  # fmt: skip
    path = tmp_path / "damaged.jsonl"
    path.write_text(json.dumps(good) + "\n" + '{"type": "user", NaN}\n')
    assert failure(path).where == "line 2"
    orphan = claude("user", "2026-01-01T10:00:01Z",
                    [{"type": "tool_result", "tool_use_id": "nope", "content": "x"}])  # fmt: skip
    error = failure(write(tmp_path / "orphan.jsonl", [good, orphan]))
    assert error.where == "line 2" and "nope" in error.message


def test_openai_arguments_are_decoded_strictly_and_named_by_json_path(tmp_path: Path) -> None:
    messages = [
        {"role": "assistant", "tool_calls": [
            {"id": "c1", "type": "function",
             "function": {"name": "bash", "arguments": '{"command": "ls", "command": "rm"}'}}]},
    ]  # fmt: skip
    path = tmp_path / "chat.json"
    path.write_text(json.dumps(messages))
    error = failure(path)
    assert error.where == "$[0].tool_calls[0].function.arguments"
    assert "duplicate key" in error.message


def test_a_failed_import_writes_nothing_and_a_name_clash_is_refused(tmp_path: Path) -> None:
    with SQLiteEventStore(tmp_path / "s.sqlite") as store:
        bad = write(tmp_path / "bad.jsonl", [
            claude("assistant", "2026-01-01T10:00:00Z",
                   [{"type": "tool_use", "id": "t1", "name": "Read", "input": {}}]),
            claude("user", "2026-01-01T10:00:01Z",
                   [{"type": "tool_result", "tool_use_id": "t1", "content": "x"},
                    {"type": "tool_result", "tool_use_id": "t1", "content": "again"}]),
        ])  # fmt: skip
        assert "a second tool_result for t1" in failure(bad, store).message
        assert store.count() == 0
        sample = DATA / "claude-code" / "short_two_rejections.jsonl"
        import_transcript(sample, store, ImportOptions(conversation=False), session="mine").unwrap()
        other = DATA / "openhands" / "runtime_test_basic.json"
        clash = failure(other, store, session="mine")
        assert "holds a different session named 'mine'" in clash.message
        assert store.count() == 6  # the description and the 5 events of two rejected calls


def cli(*args: str) -> Ran:
    result = correx(*args)
    assert "Traceback" not in result.stderr
    return result


def test_the_command_imports_reimports_and_refuses_in_one_line(tmp_path: Path) -> None:
    sample = str(DATA / "openhands" / "multi_swe_bench_ponylang__ponyc-4595.json")
    dest = str(tmp_path / "agents.sqlite")
    first = cli("import-transcript", sample, dest, "--json", "--no-conversation")
    assert first.returncode == 0, first.stderr
    document = json.loads(first.stdout)
    assert document["format"] == "openhands" and document["invocations"] == 23
    # 67, the description, and how the run ended (its task and patch)
    assert document["in_flight"] == 1 and document["events"] == 69
    again = cli("import-transcript", sample, dest, "--no-conversation")
    assert again.returncode == 0
    assert "already imported as session ponylang__ponyc-4595; nothing written" in again.stdout
    replay = cli("replay", dest, "ponylang__ponyc-4595")
    assert replay.returncode == 0, replay.stderr
    missing = tmp_path / "new.sqlite"
    broken = cli("import-transcript", str(tmp_path / "nothing.json"), str(missing))
    assert broken.returncode == 1
    assert len(broken.stderr.strip().splitlines()) == 1
    assert not missing.exists()
