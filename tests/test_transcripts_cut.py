"""One value too large to store is cut, and its session kept: it no longer hides the whole
session from ``sessions``, ``serve`` and the report (``the cache refused session …``).

The transcript is the real Claude Code sample (``data/transcripts/claude-code``) with one
``ls -la`` result grown to 1.5 MiB, as a command that prints that much makes it; the
cut keeps the longest prefix that fits and names the original's size and SHA-256.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from correx_tools import (
    MAX_EVENT_BYTES,
    JsonlEventLog,
    SQLiteEventStore,
    StoredEvent,
    ToolExecutionCompletedEvent,
    ToolExecutionFailedEvent,
    ToolInvocationRequestedEvent,
    ToolReceipt,
    import_transcript,
)
from correx_tools.shell.stores.codec.encoding import encode_event
from correx_tools.shell.transcripts.importing.cutting import fitted, prefix_within

from .commands import Ran, correx
from .recorded_samples import CLAUDE, LS, READ, grown
from .recorded_samples import CLAUDE_SESSION as SESSION
from .serving import Served

ROOT = Path(__file__).resolve().parent.parent
MISSING = "toolu_01TfDS8UjxxjY4dzV8esUMzm"
"""A Read of a file that does not exist: a failure."""


def changed(tmp: Path, change: Callable[[dict[str, Any]], None]) -> Path:
    """A copy of the sample in a folder of its own, each record passed to ``change``."""
    folder = tmp / "projects" / "-home-me-repo"
    folder.mkdir(parents=True)
    records = [json.loads(line) for line in CLAUDE.read_text(encoding="utf-8").splitlines()]
    for record in records:
        change(record)
    path = folder / CLAUDE.name
    path.write_text("".join(json.dumps(r, ensure_ascii=False) + "\n" for r in records), "utf-8")
    return path


def blocks(record: dict[str, Any]) -> list[dict[str, Any]]:
    message = record.get("message")
    content = message.get("content") if isinstance(message, dict) else None
    return [b for b in content if isinstance(b, dict)] if isinstance(content, list) else []


def run(*args: str) -> Ran:
    result = correx(*args, cwd=ROOT)
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result


def described(text: str) -> str:
    data = text.encode()
    return f"{len(data):,} bytes, sha256:{hashlib.sha256(data).hexdigest()}"


@pytest.fixture(scope="module")
def huge(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The sample with the ``ls -la`` result grown to 1.5 MiB, and that result's text."""
    said: list[str] = []

    def grow(record: dict[str, Any]) -> None:
        for block in blocks(record):
            if block.get("tool_use_id") == LS and block.get("type") == "tool_result":
                block["content"] = grown(block["content"])
                said.append(block["content"])

    path = changed(tmp_path_factory.mktemp("huge"), grow)
    return path, said[0]


def test_one_huge_output_is_cut_and_its_session_shown_everywhere(
    huge: tuple[Path, str], tmp_path: Path
) -> None:
    path, original = huge
    folder = path.parent.parent
    cache = tmp_path / "cache.sqlite"
    listed = run("sessions", str(folder), "--json", "--cache", str(cache))
    assert "refused" not in listed.stderr, listed.stderr
    [row] = json.loads(listed.stdout)["sessions"]
    assert row["session_id"] == SESSION and row["invocations"] == 33
    for dest in (tmp_path / "agents.sqlite", tmp_path / "agents.jsonl"):
        run("import-transcript", str(path), str(dest))
        calls = json.loads(run("replay", str(dest), SESSION, "--json").stdout)["invocations"]
        ls = next(c for c in calls if c["invocation_id"].endswith(LS))
        assert ls["status"] == "completed"
        assert ls["receipt"]["metadata"]["cut"] == f"output: {described(original)}"
        kept = ls["receipt"]["output"]
        assert original.startswith(kept) and len(kept.encode()) > 1_000_000
    report = tmp_path / "report.html"
    run("report", str(folder), SESSION, "-o", str(report), "--cache", str(cache))
    assert report.stat().st_size > 0
    server = Served(folder, "--cache", str(cache))
    try:
        shown = server.answer("/api/v1/sessions")["sessions"]
        assert [s["session_id"] for s in shown] == [SESSION]
    finally:
        server.stop()


def test_a_huge_argument_is_cut_where_the_request_shows_it_and_named_on_the_receipt(
    tmp_path: Path,
) -> None:
    content = grown("# notes\n")

    def write(record: dict[str, Any]) -> None:  # the first Read asked to carry a file's text
        for block in blocks(record):
            if block.get("id") == READ and block.get("type") == "tool_use":
                block["input"]["content"] = content

    store = SQLiteEventStore(tmp_path / "agents.sqlite")
    done = import_transcript(changed(tmp_path, write), store).unwrap()
    events = {type(s.event): s.event for s in store.read(done.session_id) if READ in str(s.event)}
    asked = events[ToolInvocationRequestedEvent].request.arguments["content"]  # type: ignore[attr-defined]
    note = f"arguments.content: {described(content)}"
    kept, _, mark = asked.rpartition("\n")
    assert mark == f"[cut: {note}]" and content.startswith(kept) and len(kept) > 500_000
    receipt = events[ToolExecutionCompletedEvent].receipt  # type: ignore[attr-defined]
    assert receipt.metadata["cut"] == note


def test_a_huge_failure_is_cut_where_its_reason_shows_it(tmp_path: Path) -> None:
    said: list[str] = []

    def fail(record: dict[str, Any]) -> None:
        for block in blocks(record):
            if block.get("tool_use_id") == MISSING and block.get("type") == "tool_result":
                block["content"] = grown(block["content"])
                said.append(block["content"])

    log = JsonlEventLog(tmp_path / "agents.jsonl")
    done = import_transcript(changed(tmp_path, fail), log).unwrap()
    [failed] = [
        s.event for s in log.read(done.session_id) if isinstance(s.event, ToolExecutionFailedEvent)
        and s.event.invocation_id.endswith(MISSING)
    ]  # fmt: skip
    kept, _, mark = failed.reason.rpartition("\n")
    assert mark == f"[cut: reason: {described(said[0])}]" and said[0].startswith(kept)


# -- the rule, on any value ------------------------------------------------------------------

PIECES = st.text(alphabet=st.sampled_from('ab"\\\n\x01éファ\U0001f600'), min_size=1, max_size=8)


@settings(max_examples=200, deadline=None)
@given(PIECES, st.integers(0, 80))
def test_the_prefix_kept_is_the_longest_that_fits(text: str, room: int) -> None:
    kept = prefix_within(text * 5, room)
    escaped = len(json.dumps(kept, ensure_ascii=False).encode()) - 2
    assert (text * 5).startswith(kept) and escaped <= room
    if len(kept) < len(text * 5):
        longer = (text * 5)[: len(kept) + 1]
        assert len(json.dumps(longer, ensure_ascii=False).encode()) - 2 > room


@settings(max_examples=25, deadline=None)
@given(
    st.lists(st.tuples(PIECES, st.integers(1, 300_000)), min_size=1, max_size=6),
    st.sampled_from(["list", "object", "text"]),
)
def test_any_output_is_cut_to_fit_and_each_cut_names_its_original(
    pieces: list[tuple[str, int]], shape: str
) -> None:
    strings = [piece * repeat for piece, repeat in pieces]
    output: Any = (
        strings if shape == "list"
        else {f"part{n}": s for n, s in enumerate(strings)} if shape == "object"
        else "".join(strings)
    )  # fmt: skip

    def build(value: Any, notes: tuple[str, ...]) -> object:
        metadata = {"cut": "; ".join(notes)} if notes else {}
        return ToolExecutionCompletedEvent(
            invocation_id="s/c", receipt=ToolReceipt(output=value, metadata=metadata)
        )

    event, notes = fitted(output, "output", build, "s", inline=False)
    when = datetime(2026, 1, 1, tzinfo=UTC)
    stored = StoredEvent(session_id="s", sequence=10**9, recorded_at=when, event=event)
    encode_event(stored)  # every store takes it: it is within MAX_EVENT_BYTES
    whole = len(json.dumps(output, ensure_ascii=False).encode())
    if not notes:
        assert event == build(output, ()) and whole < MAX_EVENT_BYTES
        return
    originals = {described(s) for s in (strings if shape != "text" else [output])}
    originals.add(described(json.dumps(output, ensure_ascii=False, sort_keys=True,
                                       separators=(",", ":"))))  # fmt: skip
    for note in notes:
        assert note.partition(": ")[2] in originals, note
