"""An import records what happened and nothing else: no made-up exit code or time, an
edit that did not take effect marked so, an exit code the transcript states kept.

Each test reads a sample of ``data/transcripts/`` (see each PROVENANCE.txt), or a copy of
one with one record changed the way the agent itself writes it (said beside each), through
the real command where it shows what the views show, and through the library.
"""

from __future__ import annotations

import json
import tempfile
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from correx_tools import (
    InMemoryEventStore,
    SQLiteEventStore,
    ToolExecutionCompletedEvent,
    import_transcript,
)

from .commands import correx
from .recorded_samples import CLAUDE, CLAUDE_SESSION, FIND
from .transcript_samples import DATA

ROOT = Path(__file__).resolve().parent.parent
OPENHANDS = DATA / "openhands" / "multi_swe_bench_ponylang__ponyc-4595.json"
AIDER = DATA / "aider" / "real" / "hello-world-flask.md"
MARSHMALLOW = DATA / "swe-agent" / "marshmallow-1867_function_calling.traj"
CTF = DATA / "swe-agent" / "ctf_i_got_id_demo.traj"
CODEX = next((DATA / "codex").glob("rollout-*.jsonl"))
CLINE = DATA / "cline" / "tasks" / "1763448130250" / "api_conversation_history.json"
GOOSE_LINES = DATA / "goose" / "20251118_154210.jsonl"
GEMINI = DATA / "gemini-cli" / "session-2025-11-18T06-42-8c2d41e7.jsonl"
MCP_WRAPPED = DATA / "mcp" / "traffic-wrapped.jsonl"
NOT_KNOWN = {"exit_code_known": "false"}


def replayed(source: Path, session: str) -> dict[str, dict[str, Any]]:
    """``correx-tools replay SOURCE SESSION --json``: each call as the command gives it, by the
    transcript's own call id."""
    result = correx("replay", str(source), session, "--json", "--no-cache", cwd=ROOT)
    assert result.returncode == 0, result.stderr
    return {
        r["invocation_id"].rpartition("/")[2]: r for r in json.loads(result.stdout)["invocations"]
    }


def receipts(path: Path) -> dict[str, Any]:
    """Each completed call's receipt, by the transcript's own call id (the library)."""
    store = InMemoryEventStore()
    done = import_transcript(path, store).unwrap()
    return {
        stored.event.invocation_id.rpartition("/")[2]: stored.event.receipt
        for stored in store.read(done.session_id)
        if isinstance(stored.event, ToolExecutionCompletedEvent)
    }


def rewritten(path: Path, tmp_path: Path, change: Any) -> Path:
    """A copy of a JSON Lines sample with ``change(record)`` applied to each record."""
    lines = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    copy = tmp_path / path.name
    copy.write_text(
        "".join(json.dumps(change(r), ensure_ascii=False) + "\n" for r in lines), encoding="utf-8"
    )
    return copy


# -- item 1: an edit that did nothing ------------------------------------------------------


def test_an_openhands_edit_that_replaced_nothing_says_so_in_its_own_words() -> None:
    calls = replayed(OPENHANDS, "ponylang__ponyc-4595")
    refused = calls["toolu_12"]  # "ERROR: No replacement was performed", extras.diff empty
    assert refused["status"] == "completed"  # an edit observation, as OpenHands recorded it
    said = refused["receipt"]["metadata"]
    assert said["edit_applied"] == "false"
    assert said["edit_note"].startswith("ERROR: No replacement was performed, old_str `")
    assert len(said["edit_note"]) <= 300 and "\n" not in said["edit_note"]
    applied = calls["toolu_14"]["receipt"]["metadata"]  # the edit that took, with its diff
    assert "edit_applied" not in applied and "edit_note" not in applied


def test_an_aider_dry_run_edit_is_completed_and_marked_as_not_applied(tmp_path: Path) -> None:
    # Aider's --dry-run writes "Did not apply edit to <file> (--dry-run)" where it would
    # write "Applied edit to <file>" (aider/coders/base_coder.py, apply_updates).
    copy = tmp_path / AIDER.name
    text = AIDER.read_text(encoding="utf-8")
    copy.write_text(
        text.replace("> Applied edit to app.py", "> Did not apply edit to app.py (--dry-run)"),
        encoding="utf-8",
    )
    edits = receipts(copy)
    assert len(edits) == 4
    for receipt in edits.values():
        assert receipt.metadata["edit_applied"] == "false"
        assert receipt.metadata["edit_note"] == "Did not apply edit to app.py (--dry-run)"
    assert all("edit_applied" not in r.metadata for r in receipts(AIDER).values())


def test_a_swe_agent_edit_the_tool_reverted_is_marked_as_not_applied(tmp_path: Path) -> None:
    # The edit step's observation as SWE-agent's windowed_edit_replace writes a reverted edit.
    document = json.loads(MARSHMALLOW.read_text(encoding="utf-8"))
    step = next(s for s in document["trajectory"] if s["action"].startswith("edit"))
    step["observation"] = (
        "Your proposed edit has introduced new syntax error(s). Please read this error message "
        "carefully and then retry editing the file.\n\nERRORS:\n\n- E999 IndentationError: "
        "unexpected indent\n\nYour changes have NOT been applied. Please fix your edit command "
        "and try again."
    )
    copy = tmp_path / MARSHMALLOW.name
    copy.write_text(json.dumps(document), encoding="utf-8")
    marked = {c: r for c, r in receipts(copy).items() if "edit_applied" in r.metadata}
    [(call, receipt)] = marked.items()
    assert call == "call_w3V11DzvRdoLHWwtZgIaW2wr"
    assert receipt.metadata["edit_note"].startswith("Your proposed edit has introduced new")
    assert not any("edit_applied" in r.metadata for r in receipts(MARSHMALLOW).values())


# -- item 2: a stated exit code is kept ----------------------------------------------------


def test_a_claude_code_bash_result_stating_an_exit_code_keeps_it_error_or_not(
    tmp_path: Path,
) -> None:
    # The `find` over a missing folder, its result as Claude Code writes a command that
    # exited 1 ("Exit code 1" on the first line), with is_error left unset.
    def exited(record: dict[str, Any]) -> dict[str, Any]:
        for block in (record.get("message") or {}).get("content") or []:
            if (
                isinstance(block, dict)
                and block.get("tool_use_id") == "toolu_01QXjwuWbVymGYd1Q7PYcx2w"
            ):
                block["content"] = "Exit code 1\n" + block["content"]
                assert block["is_error"] is False
        return record

    calls = replayed(rewritten(CLAUDE, tmp_path, exited), CLAUDE_SESSION)
    failed = calls[FIND]
    assert failed["status"] == "completed" and failed["receipt"]["exit_code"] == 1
    assert "exit_code_known" not in failed["receipt"]["metadata"]
    # Every other result states no exit code: none is recorded, Bash or not.
    others = [r for c, r in calls.items() if r["receipt"] and c != FIND]
    assert {r["tool_name"] for r in others} == {"Read", "Glob", "Grep", "Bash"}
    assert all(r["receipt"]["metadata"]["exit_code_known"] == "false" for r in others)
    assert all(r["receipt"]["exit_code"] is None for r in others)  # none shown as a code


def test_a_codex_exec_command_states_its_exit_code_in_its_header(tmp_path: Path) -> None:
    # `make test`'s output as codex-rs unified exec (exec_command) formats it.
    def unified(record: dict[str, Any]) -> dict[str, Any]:
        payload = record.get("payload") or {}
        if payload.get("call_id") == "call_k3Mk" and payload.get("type") == "function_call_output":
            body = payload["output"].split("Output:\n", 1)[1]
            payload["output"] = (
                "Chunk ID: 4f2a\nWall time: 1.9000 seconds\nProcess exited with code 3\n"
                f"Original token count: 120\nOutput:\n{body}"
            )
        return record

    ended = receipts(rewritten(CODEX, tmp_path, unified))
    assert (
        ended["call_k3Mk"].exit_code == 3 and "exit_code_known" not in ended["call_k3Mk"].metadata
    )
    assert receipts(CODEX)["call_k3Mk"].exit_code == 2  # the older "Exit code: 2" form


def test_cline_states_an_exit_code_only_at_the_start_of_a_commands_result(tmp_path: Path) -> None:
    ended = receipts(CLINE)
    assert ended["toolu_01Tr02aZ8kQw"].exit_code == 2  # Command failed with exit code 2.
    succeeded = ended["toolu_01Tr07aZ8kQw"]  # Command executed successfully (exit code 0).
    assert succeeded.exit_code == 0 and "exit_code_known" not in succeeded.metadata
    assert ended["toolu_01Tr01aZ8kQw"].metadata["exit_code_known"] == "false"  # read_file
    # A command's own output that prints Cline's words states nothing about the command.
    messages = json.loads(CLINE.read_text(encoding="utf-8"))
    for message in messages:
        for block in message["content"] if isinstance(message["content"], list) else []:
            if block.get("tool_use_id") == "toolu_01Tr07aZ8kQw":
                block["content"] = "Command executed.\nOutput:\nCommand failed with exit code 3."
    copy = tmp_path / "api_conversation_history.json"
    copy.write_text(json.dumps(messages, ensure_ascii=False), encoding="utf-8")
    echoed = receipts(copy)["toolu_01Tr07aZ8kQw"]
    assert echoed.exit_code == 0 and echoed.metadata == {**echoed.metadata, **NOT_KNOWN}


def test_an_openhands_command_that_had_not_exited_has_no_exit_code(tmp_path: Path) -> None:
    # OpenHands writes exit_code -1 (CmdOutputMetadata's default) for a command still running
    # when its observation was made: a soft timeout, with this suffix.
    document = json.loads(OPENHANDS.read_text(encoding="utf-8"))
    event = next(e for e in document["history"] if e.get("cause") == 39)  # the second `cd`
    event["extras"]["metadata"]["exit_code"] = -1
    event["content"] += "\n[The command has no new output after 30 seconds.]"
    copy = tmp_path / OPENHANDS.name
    copy.write_text(json.dumps(document), encoding="utf-8")
    running = receipts(copy)["toolu_18"]
    assert running.exit_code == 0 and running.metadata["exit_code_known"] == "false"
    assert receipts(OPENHANDS)["toolu_18"].exit_code == 2


def test_a_gemini_shell_states_its_exit_code_after_the_commands_own_output(
    tmp_path: Path,
) -> None:
    # The passing `cargo test`, its output printing a line that reads like the shell's own.
    def printed(record: dict[str, Any]) -> dict[str, Any]:
        for call in record.get("toolCalls") or []:
            for part in call.get("result") or []:
                response = part["functionResponse"]["response"]
                if "test result: ok" in response.get("output", ""):
                    response["output"] = response["output"].replace(
                        "Output: ", "Output: \nExit Code: 7\n", 1
                    )
        return record

    ended = receipts(rewritten(GEMINI, tmp_path, printed))
    assert ended["run_shell_command-1763448160-8"].exit_code == 0
    assert "exit_code_known" not in ended["run_shell_command-1763448160-8"].metadata


# -- item 3: no made-up exit code or time --------------------------------------------------


def test_every_sample_records_an_exit_code_only_where_its_transcript_states_one() -> None:
    stated: Counter[str] = Counter()
    for path in [*DATA.rglob("*.jsonl"), *DATA.rglob("*.json"), *DATA.rglob("*.traj"),
                 *DATA.rglob("*.md")]:  # fmt: skip
        if path.name.endswith("expected.json") or path.name in ("ui_messages.json",):
            continue
        for call, receipt in receipts(path).items():
            if receipt.metadata.get("exit_code_known") != "false":
                stated[receipt.metadata["tool_name"]] += 1
            else:
                assert receipt.exit_code == 0, (path, call)
    # Only a shell's result states its exit code, in the formats that write one.
    assert set(stated) == {
        "shell_command",
        "local_shell",
        "apply_patch",  # codex: "Exit code: N", JSON
        "run_shell_command",  # gemini-cli: "Exit Code: N"
        "execute_command",  # cline: "Command failed with exit code N." and its 0
        "bash",  # opencode: metadata.exit
        "execute_bash",  # openhands: extras.metadata.exit_code
    }, stated


def test_a_transcript_that_records_no_time_says_so(tmp_path: Path) -> None:
    result = correx("sessions", str(CTF), "--json", "--no-cache", check=True, cwd=ROOT)
    [row] = json.loads(result.stdout)["sessions"]
    assert row["transcript"]["times_recorded"] is False and row["transcript"]["started_at"] is None
    store = InMemoryEventStore()
    done = import_transcript(CTF, store).unwrap()
    first = next(iter(store.read(done.session_id))).event
    assert first.data["times"] == "none"  # type: ignore[attr-defined]
    # What a run does record of time, a step's duration, is kept on the step's receipt.
    steps = json.loads(MARSHMALLOW.read_text(encoding="utf-8"))["trajectory"]
    kept = [r.metadata["execution_time"] for r in receipts(MARSHMALLOW).values()]
    assert kept == [repr(step["execution_time"]) for step in steps if step["action"].strip()]


def test_a_goose_session_file_runs_from_its_first_recorded_time_not_from_2000() -> None:
    store = InMemoryEventStore()
    done = import_transcript(GOOSE_LINES, store).unwrap()
    events = list(store.read(done.session_id))
    times = [stored.recorded_at for stored in events]
    # The file's first line records no time: the description takes its first message's.
    first_message = json.loads(GOOSE_LINES.read_text(encoding="utf-8").splitlines()[1])
    assert times[0].timestamp() == first_message["created"]
    assert min(times).year == max(times).year == 2025
    assert "times" not in events[0].event.data  # type: ignore[attr-defined]


def test_a_line_without_a_time_takes_the_nearest_recorded_one(tmp_path: Path) -> None:
    lines = [json.loads(line) for line in MCP_WRAPPED.read_text(encoding="utf-8").splitlines()]
    stamps = [line["ts"] for line in lines]
    for index in (0, 1, 5, 6, 7):  # the first lines, and some in the middle
        del lines[index]["ts"]
    copy = tmp_path / MCP_WRAPPED.name
    copy.write_text("".join(json.dumps(line) + "\n" for line in lines), encoding="utf-8")
    store = InMemoryEventStore()
    done = import_transcript(copy, store).unwrap()
    events = list(store.read(done.session_id))
    kept = {stamp for index, stamp in enumerate(stamps) if index not in (0, 1, 5, 6, 7)}
    assert {e.recorded_at.isoformat().replace("+00:00", "Z") for e in events} <= {
        _iso(stamp) for stamp in kept
    }
    assert events[0].recorded_at.isoformat().replace("+00:00", "Z") == _iso(stamps[2])
    assert "times" not in events[0].event.data  # type: ignore[attr-defined]


def _iso(stamp: str) -> str:
    return datetime.fromisoformat(stamp).astimezone(UTC).isoformat().replace("+00:00", "Z")


@settings(max_examples=40, deadline=None)
@given(st.sets(st.integers(0, 200)))
def test_any_lines_without_times_take_recorded_ones_and_none_is_made_up(untimed: set[int]) -> None:
    lines = [json.loads(line) for line in MCP_WRAPPED.read_text(encoding="utf-8").splitlines()]
    untimed = {index % len(lines) for index in untimed}
    kept = [_iso(line["ts"]) for index, line in enumerate(lines) if index not in untimed]
    for index in untimed:
        del lines[index]["ts"]
    store = InMemoryEventStore()
    text = "".join(json.dumps(line) + "\n" for line in lines)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / MCP_WRAPPED.name
        path.write_text(text, encoding="utf-8")
        done = import_transcript(path, store).unwrap()
    events = list(store.read(done.session_id))
    shown = [e.recorded_at.isoformat().replace("+00:00", "Z") for e in events]
    description = events[0].event.data  # type: ignore[attr-defined]
    if kept:
        assert set(shown) <= set(kept)
        assert shown[0] == kept[0] and "times" not in description
    else:
        assert description["times"] == "none"


def test_a_goose_file_before_its_first_message_gives_no_session_yet(tmp_path: Path) -> None:
    live = tmp_path / GOOSE_LINES.name
    lines = GOOSE_LINES.read_text(encoding="utf-8").splitlines(keepends=True)
    live.write_text(lines[0], encoding="utf-8")  # its first line: no call, and no time
    dest = tmp_path / "agents.sqlite"
    result = correx("import-transcript", str(live), str(dest), check=True, cwd=ROOT)
    assert "no call and no time recorded yet; nothing written" in result.stdout
    live.write_text("".join(lines), encoding="utf-8")  # Goose writes its messages
    store = InMemoryEventStore()
    done = import_transcript(live, store).unwrap()
    with SQLiteEventStore(dest) as kept:
        again = import_transcript(live, kept).unwrap()
        assert not again.grown and again.events == done.events
        assert list(kept.read(again.session_id)) == list(store.read(done.session_id))
