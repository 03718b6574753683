"""Live transcripts: a file still being written, imported again as it grows.

A transcript cut mid-line at its end imports every complete line and says
that the last was left out; importing the grown file adds only the new events
to the same session, or, when the file was rewritten, says what it would need
and writes nothing. A damaged line in the middle refuses the whole file,
unless ``--lenient`` imports the rest and lists what it left out.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from returns.result import Failure

from correx_tools import InMemoryEventStore, PostgresEventStore, SessionId
from correx_tools.shell.transcripts.common.lines import is_json
from correx_tools.shell.transcripts.importing.importing import import_transcript
from correx_tools.shell.transcripts.importing.options import ImportOptions

from .commands import Ran, correx
from .transcript_samples import DATA

CODEX = DATA / "codex" / "rollout-2025-11-18T15-42-10-019a95d1-3c7e-7b22-a4f0-6e1d2c9b8a53.jsonl"
LIVE = {
    "codex": CODEX,
    "mcp-bare": DATA / "mcp" / "traffic-bare.jsonl",
    "mcp-wrapped": DATA / "mcp" / "traffic-wrapped.jsonl",
    "goose-legacy": DATA / "goose" / "20251118_154210.jsonl",
    "claude-code": DATA / "claude-code" / "short_two_rejections.jsonl",
    "gemini-cli": DATA / "gemini-cli" / "session-2025-11-18T06-42-8c2d41e7.jsonl",
    "aider": DATA / "aider" / "synth" / ".aider.chat.history.md",
}
APPEND_ONLY = {"codex", "mcp-bare", "mcp-wrapped", "goose-legacy", "claude-code"}
"""Formats whose files only ever grow: a later import always adds to the session. A Gemini
chat rewinds (its file then gives other events), and an Aider reply still being written
may yet add a block to an edit it already holds."""


def complete_part(data: bytes, markdown: bool) -> bytes:
    """What of a cut file is complete: up to its last newline, and a last line without one
    when it is whole JSON already (a Markdown line is never known to be whole)."""
    cut = data.rfind(b"\n") + 1
    tail = data[cut:]
    if tail.strip() and not markdown and is_json(tail.decode("utf-8", "replace")):
        return data
    return data[:cut]


@settings(max_examples=150, deadline=None)
@given(name=st.sampled_from(sorted(LIVE)), fraction=st.floats(0, 1))
def test_any_cut_imports_exactly_its_complete_lines_and_the_grown_file_adds_the_rest(
    name: str, fraction: float
) -> None:
    path = LIVE[name]
    data = path.read_bytes()
    markdown = path.suffix == ".md"
    cut = data[: int(len(data) * fraction)]
    with tempfile.TemporaryDirectory() as folder:
        # Each copy in a folder of the sample's folder's name: Aider's sessions are named so.
        live = Path(folder) / "live" / path.parent.name / path.name
        whole_lines = Path(folder) / "complete" / path.parent.name / path.name
        for made in (live, whole_lines):
            made.parent.mkdir(parents=True)
        live.write_bytes(cut)
        store = InMemoryEventStore()
        partial = import_transcript(live, store)
        whole_lines.write_bytes(complete_part(cut, markdown))
        reference = InMemoryEventStore()
        expected = import_transcript(whole_lines, reference)
        assert isinstance(partial, Failure) == isinstance(expected, Failure)
        if isinstance(partial, Failure):
            assert store.sessions() == ()
        else:
            done = partial.unwrap()
            assert list(store.read(done.session_id)) == list(
                reference.read(expected.unwrap().session_id)
            )
            left_out = cut[len(complete_part(cut, markdown)) :]
            assert bool(done.incomplete_tail) == bool(left_out.strip())
        held = {s: list(store.read(s)) for s in store.sessions()}
        live.write_bytes(data)  # the file grows to its end
        grown = import_transcript(live, store)
        fresh = InMemoryEventStore()
        whole = import_transcript(path, fresh).unwrap()
        if isinstance(grown, Failure):
            assert name not in APPEND_ONLY, grown.failure()
            assert "rewritten" in grown.failure().message
            assert {s: list(store.read(s)) for s in store.sessions()} == held
        else:
            assert list(store.read(whole.session_id)) == list(fresh.read(whole.session_id))
            # And once more: nothing new, nothing written.
            held = {s: list(store.read(s)) for s in store.sessions()}
            again = import_transcript(live, store).unwrap()
            assert again.already_imported and again.events == 0
            assert {s: list(store.read(s)) for s in store.sessions()} == held


def test_a_rewound_gemini_chat_is_refused_and_says_what_it_needs(tmp_path: Path) -> None:
    path = LIVE["gemini-cli"]
    lines = path.read_text(encoding="utf-8").splitlines(keepends=True)
    live = tmp_path / path.name
    live.write_text("".join(lines[:8]), encoding="utf-8")  # before the rewind
    store = InMemoryEventStore()
    first = import_transcript(live, store).unwrap()
    held = list(store.read(first.session_id))
    assert any("rm -rf" in str(e.event) for e in held)
    live.write_text("".join(lines), encoding="utf-8")
    refused = import_transcript(live, store)
    assert isinstance(refused, Failure)
    assert "import-transcript FILE DEST --session NAME" in refused.failure().message
    assert list(store.read(first.session_id)) == held
    again = import_transcript(live, store, session="after-the-rewind").unwrap()
    assert again.invocations == 13 and not again.grown


def cli(*args: str, ok: bool = True) -> Ran:
    result = correx("import-transcript", *args)
    assert "Traceback" not in result.stderr
    assert (result.returncode == 0) == ok, result.stderr
    return result


def test_the_command_imports_a_live_file_as_it_grows(tmp_path: Path) -> None:
    data = CODEX.read_bytes()
    live, dest = tmp_path / CODEX.name, str(tmp_path / "live.sqlite")
    live.write_bytes(data[:9000])  # line 19 is cut in the middle
    first = cli(str(live), dest, "--no-conversation")
    [warning] = first.stderr.strip().splitlines()
    assert warning.endswith(
        f"{live}: line 19 is incomplete (still being written?) and was left out; "
        "importing the file again adds it"
    )
    assert "17 events" in first.stdout
    live.write_bytes(data)
    grown = json.loads(cli(str(live), dest, "--json", "--no-conversation").stdout)
    assert grown["grown"] and grown["events"] == 38 - 17 and grown["invocations"] == 14
    assert grown["incomplete_last_line"] is None
    again = cli(str(live), dest, "--no-conversation")
    assert "already imported" in again.stdout and again.stderr == ""


def test_a_damaged_line_refuses_the_file_unless_lenient(tmp_path: Path) -> None:
    lines = CODEX.read_text(encoding="utf-8").splitlines(keepends=True)
    lines[5] = lines[5][:40] + "\n"  # a line cut short in the middle of the file
    damaged, dest = tmp_path / "damaged.jsonl", tmp_path / "out.sqlite"
    damaged.write_text("".join(lines), encoding="utf-8")
    refused = cli(str(damaged), str(dest), ok=False)
    [line] = refused.stderr.strip().splitlines()
    assert f"{damaged}: line 6: invalid JSON" in line
    assert "--lenient imports the other lines" in line and line.endswith("nothing was imported")
    assert not dest.exists()
    lenient = cli(str(damaged), str(dest), "--lenient")
    assert "left out 1 damaged lines (--lenient):\n  line 6: invalid JSON" in lenient.stdout
    document = json.loads(cli(str(damaged), str(dest), "--lenient", "--json").stdout)
    assert document["already_imported"]
    assert [s["where"] for s in document["skipped_lines"]] == ["line 6"]
    # Line 6 held the output of call_k2Fx: that call is in flight, every other is as it was.
    assert document["invocations"] == 14 and document["in_flight"] == 2


def test_a_grown_file_appends_to_a_postgresql_session(
    postgres_dsn: str, postgres_schema: str, tmp_path: Path
) -> None:
    data = CODEX.read_bytes()
    live = tmp_path / CODEX.name
    live.write_bytes(data[:12000])
    with PostgresEventStore(postgres_dsn, schema=postgres_schema) as store:
        first = import_transcript(live, store, ImportOptions(conversation=False)).unwrap()
        live.write_bytes(data)
        grown = import_transcript(live, store, ImportOptions(conversation=False)).unwrap()
        assert grown.grown and first.events + grown.events == 38
        held = list(store.read(SessionId(grown.session_id)))
        assert [e.sequence for e in held] == list(range(1, 39))
    fresh = InMemoryEventStore()
    whole = import_transcript(CODEX, fresh, ImportOptions(conversation=False)).unwrap()
    assert held == list(fresh.read(whole.session_id))


@pytest.mark.slow
@settings(max_examples=2000, deadline=None)
@given(name=st.sampled_from(sorted(LIVE)), fraction=st.floats(0, 1))
def test_many_more_cuts(name: str, fraction: float) -> None:
    test_any_cut_imports_exactly_its_complete_lines_and_the_grown_file_adds_the_rest.hypothesis.inner_test(  # type: ignore[attr-defined]
        name=name, fraction=fraction
    )
