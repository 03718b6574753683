"""Every agent's transcript format: each sample imports with the counts stated beside it,
recognised from its content and by its name, replays strictly, and imports once.

The samples (``tests/data/transcripts/<format>/``, each with its PROVENANCE) were
synthesized from each agent's own type definitions, except the real Aider example;
their ``expected.json`` files were written with them, not taken from this code.
"""

from __future__ import annotations

from collections import Counter
from pathlib import Path
from typing import Any

import pytest
from returns.result import Failure

from correx_tools import (
    EventReplayer,
    EventStore,
    InMemoryEventStore,
    SQLiteEventStore,
    ToolExecutionCompletedEvent,
    ToolExecutionStartedEvent,
    ToolInvocationRequestedEvent,
    ToolProjector,
    conversation_of,
)
from correx_tools.shell.transcripts.importing.importing import (
    TranscriptImport,
    import_transcript,
    import_transcripts,
)
from correx_tools.shell.transcripts.importing.options import ImportOptions

from .commands import correx
from .transcript_samples import DATA, Sample, samples

SAMPLES = samples()
FORMATS = sorted({sample.format for sample in SAMPLES})


def test_every_new_format_has_samples() -> None:
    assert FORMATS == ["aider", "cline", "codex", "gemini-cli", "goose", "mcp", "opencode"]
    assert len(SAMPLES) == 13


def counts(store: EventStore, done: TranscriptImport) -> dict[str, Any]:
    """What the store holds of an imported session, in the samples' own terms."""
    events = [stored.event for stored in store.read(done.session_id)]
    requested = [e for e in events if isinstance(e, ToolInvocationRequestedEvent)]
    return {
        "calls": len(requested),
        "by_tool": dict(Counter(e.tool_name for e in requested)),
        "by_status": {
            "completed": done.statuses["completed"],
            "failed": done.statuses["failed"],
            "rejected": done.statuses["rejected"],
            "in_flight": done.in_flight,
        },
        "nonzero_exit_completed": sum(
            1 for e in events if isinstance(e, ToolExecutionCompletedEvent) and e.receipt.exit_code
        ),
    }


def stated(sample: Sample, done: TranscriptImport) -> dict[str, Any]:
    """The counts stated for the sample (for a database, for this session of it)."""
    return sample.expected if "calls" in sample.expected else sample.expected[done.session_id]


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.name)
@pytest.mark.parametrize("format", ["auto", "by name"])
def test_each_sample_imports_with_its_stated_counts(
    sample: Sample, format: str, tmp_path: Path
) -> None:
    chosen = sample.format if format == "by name" else "auto"
    with SQLiteEventStore(tmp_path / "imported.sqlite") as store:
        results = import_transcripts(sample.path, store, ImportOptions(format=chosen))
        imported = [result.unwrap() for result in results]
        assert len(imported) == (1 if "calls" in sample.expected else len(sample.expected))
        for done in imported:
            assert done.format == sample.format
            assert counts(store, done) == stated(sample, done)
            # A legal history: the strict replay goes through, to the same invocations.
            replay = EventReplayer(store).replay(done.session_id, ToolProjector()).unwrap()
            assert len(replay.state) == done.invocations
            assert replay.last_sequence == done.events
        held = store.count()
        again = [result.unwrap() for result in import_transcripts(sample.path, store)]
        assert all(done.already_imported and done.events == 0 for done in again)
        assert store.count() == held


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.name)
def test_a_call_refused_before_it_ran_never_started(sample: Sample) -> None:
    store = InMemoryEventStore()
    for result in import_transcripts(sample.path, store):
        done = result.unwrap()
        started = {e.event.invocation_id for e in store.read(done.session_id)
                   if isinstance(e.event, ToolExecutionStartedEvent)}  # fmt: skip
        replay = EventReplayer(store).replay(done.session_id, ToolProjector()).unwrap()
        rejected = [r for r in replay.state.records() if r.status.value == "rejected"]
        assert not {r.invocation_id for r in rejected} & started
        ended = [r for r in replay.state.records() if r.status.value in ("completed", "failed")]
        assert all(r.invocation_id in started for r in ended)


OTHER = {"aider": "codex", "cline": "opencode", "codex": "claude-code", "gemini-cli": "mcp",
         "goose": "cline", "mcp": "gemini-cli", "opencode": "goose"}  # fmt: skip


@pytest.mark.parametrize("sample", SAMPLES, ids=lambda s: s.name)
def test_a_file_given_as_another_format_says_what_was_expected_and_found(sample: Sample) -> None:
    wrong = OTHER[sample.format]
    store = InMemoryEventStore()
    result = import_transcript(sample.path, store, ImportOptions(format=wrong))
    assert isinstance(result, Failure)
    message = str(result.failure())
    assert f"not a {wrong} transcript: expected " in message
    assert "; found " in message
    assert store.sessions() == ()


def test_the_command_names_expected_and_found_in_one_line(tmp_path: Path) -> None:
    sample = (
        DATA / "codex" / "rollout-2025-11-18T15-42-10-019a95d1-3c7e-7b22-a4f0-6e1d2c9b8a53.jsonl"
    )
    dest = tmp_path / "new.sqlite"
    result = correx("import-transcript", str(sample), str(dest), "--format", "gemini-cli")
    assert result.returncode == 1 and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert "not a gemini-cli transcript: expected a Gemini CLI chat" in line
    assert "found JSON Lines whose first record has timestamp, type, payload" in line
    assert line.endswith("nothing was imported")
    assert not dest.exists()


def events_of(path: Path, **options: Any) -> tuple[TranscriptImport, list[Any]]:
    store = InMemoryEventStore()
    done = import_transcript(path, store, ImportOptions(**options)).unwrap()
    events = [stored.event for stored in store.read(done.session_id)][1:]
    return done, [event for event in events if conversation_of(event) is None]


def requests(events: list[Any]) -> dict[str, ToolInvocationRequestedEvent]:
    return {e.invocation_id.split("/", 1)[1]: e for e in events
            if isinstance(e, ToolInvocationRequestedEvent)}  # fmt: skip


def ends(events: list[Any]) -> dict[str, Any]:
    begun = (ToolInvocationRequestedEvent, ToolExecutionStartedEvent)
    return {e.invocation_id.split("/", 1)[1]: e for e in events if not isinstance(e, begun)}


def test_codex_echoes_are_no_calls_and_outputs_say_how_each_ended() -> None:
    path = DATA / "codex" / "rollout-2025-11-18T15-42-10-019a95d1-3c7e-7b22-a4f0-6e1d2c9b8a53.jsonl"
    done, events = events_of(path)
    asked, ended = requests(events), ends(events)
    assert done.session_id == "019a95d1-3c7e-7b22-a4f0-6e1d2c9b8a53"
    assert asked["call_k2Fx"].tool_name == "local_shell"
    assert asked["call_k2Fx"].request.arguments["command"][2] == "cat tests/fixtures/ひらがな.txt"
    assert ended["call_k3Mk"].receipt.exit_code == 2  # "Exit code: 2": ran, exited so
    assert ended["call_k2Fx"].receipt.exit_code == 0  # the JSON form's metadata.exit_code
    # Unparseable arguments: kept as written, and the call rejected (never started).
    assert asked["call_k5Bd"].request.arguments["unparsed_arguments"].startswith('{"command":')
    assert type(ended["call_k5Bd"]).__name__ == "ToolExecutionRejectedEvent"
    assert ended["call_k6Uk"].reason == "unsupported call: cargo_check"
    assert asked["call_k7P1"].request.arguments["input"].startswith("*** Begin Patch")
    assert type(ended["call_k7P1"]).__name__ == "ToolExecutionFailedEvent"  # verification
    assert ended["call_k9Bn"].reason.endswith("aborted by user")
    assert type(ended["call_kDPs"]).__name__ == "ToolExecutionRejectedEvent"
    assert "call_kETg" not in ended  # no output by the end: in flight


def test_gemini_keeps_the_last_copy_of_a_message_and_drops_a_rewound_branch() -> None:
    _, events = events_of(DATA / "gemini-cli" / "session-2025-11-18T06-42-8c2d41e7.jsonl")
    asked, ended = requests(events), ends(events)
    assert "run_shell_command-1763448144-x" not in asked  # the rm -rf of the rewound branch
    assert len(asked) == 13 and len(events) == len({id(e) for e in events})
    assert ended["run_shell_command-1763448135-2"].receipt.exit_code == 2  # "Exit Code: 2"
    assert type(ended["cargo_check-1763448139-4"]).__name__ == "ToolExecutionRejectedEvent"
    assert type(ended["run_shell_command-1763448143-7"]).__name__ == "ToolExecutionFailedEvent"
    assert "User denied" in ended["run_shell_command-1763448165-11"].reason
    # The .json form of the same session gives the very same events.
    _, legacy = events_of(DATA / "gemini-cli" / "session-2025-11-18T06-42-8c2d41e7.json")
    assert legacy == events


def test_cline_reads_both_encodings_to_the_same_calls() -> None:
    tasks = DATA / "cline" / "tasks"
    native_done, native = events_of(tasks / "1763448130250" / "api_conversation_history.json")
    xml_done, xml = events_of(tasks / "1763448130251" / "api_conversation_history.json")
    assert (native_done.session_id, xml_done.session_id) == ("1763448130250", "1763448130251")
    as_called = [(e.tool_name, dict(e.request.arguments)) for e in requests(native).values()]
    assert as_called == [(e.tool_name, dict(e.request.arguments)) for e in requests(xml).values()]
    assert as_called[9] == ("write_to_file", {
        "path": "docs/使い方.md",
        "content": '# 使い方 (usage)\n\n    translit greek "Αθήνα"   # athina\n'
                   '    translit kana  "しんぶん"  # shinbun\n'})  # fmt: skip
    xml_ends = list(ends(xml).values())
    assert [type(e).__name__[13:] for e in ends(native).values()] == [
        type(e).__name__[13:] for e in xml_ends
    ]
    assert "main には force push しないで" in xml_ends[-1].reason  # the denial's feedback


def test_goose_names_a_call_it_could_not_read_unknown_and_rejects_it() -> None:
    _, events = events_of(DATA / "goose" / "20251118_2.json")
    asked, ended = requests(events), ends(events)
    assert asked["toolu_04Kx7mVb3R"].tool_name == "unknown"
    assert ended["toolu_04Kx7mVb3R"].reason.startswith("-32602: Could not interpret")
    assert "Interrupted by the user" in ended["toolu_07Kx7mVb3R"].reason
    assert type(ended["toolu_11Kx7mVb3R"]).__name__ == "ToolExecutionRejectedEvent"
    _, legacy = events_of(DATA / "goose" / "20251118_154210.jsonl")
    assert [type(e).__name__ for e in legacy] == [type(e).__name__ for e in events]


def test_opencode_names_an_invalid_call_after_the_tool_the_model_asked_for() -> None:
    _, events = events_of(DATA / "opencode" / "ses_4f8e21c07ffdR2kLq9mT3xYb7w.json")
    asked, ended = requests(events), ends(events)
    assert asked["toolu_01Oc04Wn4Jd"].tool_name == "cargo"
    assert type(ended["toolu_01Oc04Wn4Jd"]).__name__ == "ToolExecutionRejectedEvent"
    assert ended["toolu_01Oc02Wn4Jd"].receipt.exit_code == 2  # metadata.exit
    assert type(ended["toolu_01Oc11Wn4Jd"]).__name__ == "ToolExecutionRejectedEvent"
    assert type(ended["toolu_01Oc07Wn4Jd"]).__name__ == "ToolExecutionFailedEvent"  # aborted


def test_aider_derives_edits_per_reply_and_file_and_the_commands_it_ran() -> None:
    done, events = events_of(DATA / "aider" / "synth" / ".aider.chat.history.md")
    assert done.session_id == "synth"  # named after the folder that holds the history
    asked, ended = requests(events), ends(events)
    edits = [e for e in asked.values() if e.tool_name == "edit"]
    assert [e.request.arguments["path"] for e in edits] == [
        "src/greek.rs", "src/greek.rs", "src/greek.rs", "docs/使い方.md", "README.md",
        "tests/fixtures/ひらがな.txt",
    ]  # fmt: skip
    first = edits[0].request.arguments["edits"][0]
    assert first["search"] == "        'η' | '\u0397' => \"i\".into(),"  # eta, capital eta
    shells = {
        e.request.arguments["command"]: key for key, e in asked.items() if e.tool_name == "shell"
    }
    assert set(shells) == {
        "make test",
        "cargo bench --bench throughput",
        "git push --force origin main",
    }
    assert (
        type(ended[shells["git push --force origin main"]]).__name__ == "ToolExecutionRejectedEvent"
    )
    assert ended[shells["make test"]].receipt.metadata["exit_code_known"] == "false"


def test_mcp_pairs_by_typed_id_and_leaves_the_servers_requests_out() -> None:
    done, events = events_of(DATA / "mcp" / "traffic-bare.jsonl")
    asked, ended = requests(events), ends(events)
    assert asked['"9"'].tool_name == "read_file" and asked["9"].tool_name == "run_command"
    assert type(ended['"9"']).__name__ == "ToolExecutionFailedEvent"  # isError: ENOENT
    assert ended["9"].receipt.output.startswith("    Finished")
    assert ended["5"].receipt.output.startswith("//! Greek")  # not the sampling answer
    assert ended["10"].reason == "cancelled: User interrupted"
    assert [type(ended[k]).__name__ for k in ("6", "8")] == ["ToolExecutionRejectedEvent"] * 2
    started = [e for e in events if isinstance(e, ToolExecutionStartedEvent)]
    assert f"{done.session_id}/13" in {e.invocation_id for e in started}  # progress: started
    _, wrapped = events_of(DATA / "mcp" / "traffic-wrapped.jsonl")
    assert [type(e).__name__ for e in wrapped] == [type(e).__name__ for e in events]
