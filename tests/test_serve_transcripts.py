"""``serve`` over transcripts, followed as agents write them: a real server, Chromium, real files.

A folder stands for an agent's own (``~/.claude/projects``): files are written
into it while the server runs, as an agent writes them, and the page and the
API are held to what importing the same bytes gives.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from returns.result import Success

from correx_tools import InMemoryEventStore
from correx_tools.shell.transcripts.importing.importing import import_transcripts

from .browsing import Opened, module_browser
from .one_call import one_call_session
from .serving import ROOT, Served, wait_for
from .transcript_samples import DATA

playwright = pytest.importorskip("playwright.sync_api")
browser = module_browser()

CLAUDE = DATA / "claude-code" / "session_4d5611e5_subagent_a2898e3.jsonl"
CLAUDE_SESSION = "4d5611e5-241a-462a-8d15-5122611a9569/agent-a2898e3"
CODEX = next((DATA / "codex").glob("rollout-*.jsonl"))
CODEX_SESSION = "019a95d1-3c7e-7b22-a4f0-6e1d2c9b8a53"


def imported(path: Path) -> dict[str, Any]:
    """The session the file gives, as ``import-transcript`` would write it: its counts."""
    [result] = import_transcripts(path, InMemoryEventStore())
    assert isinstance(result, Success)
    done = result.unwrap()
    return {"events": done.events, "invocations": done.invocations, "statuses": dict(done.statuses)}


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("agent") / "projects"
    (root / "-home-me-repo").mkdir(parents=True)
    shutil.copy(CODEX, root / "-home-me-repo" / CODEX.name)
    return root


@pytest.fixture(scope="module")
def served(folder: Path) -> Iterator[Served]:
    server = Served(folder, "--no-cache")
    yield server
    server.stop()


def row_of(server: Served, session: str) -> dict[str, Any] | None:
    rows = server.answer("/api/v1/sessions", q=session)["sessions"]
    return next((row for row in rows if row["session_id"] == session), None)


def test_a_file_written_in_two_halves_shows_every_call_in_the_page_within_the_bound(
    served: Served, folder: Path, browser: Any, tmp_path: Path
) -> None:
    live = folder / "-home-me-repo" / "halves.jsonl"
    lines = CLAUDE.read_bytes().splitlines(keepends=True)
    half = len(lines) // 2
    # The first half ends mid-line, as a file being written does: that line waits for its end.
    live.write_bytes(b"".join(lines[:half]) + lines[half][:25])
    first = wait_for(lambda: row_of(served, CLAUDE_SESSION), timeout=10)
    cut = tmp_path / "first-half.jsonl"
    cut.write_bytes(b"".join(lines[:half]))
    assert first["invocations"] == imported(cut)["invocations"]
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    opened = Opened(page)
    ref = first["ref"]
    page.goto(served.link(f"/sessions/{quote(ref, safe='')}"))
    page.wait_for_selector("body[data-ready]", timeout=30_000)
    page.check("#follow")
    with live.open("ab") as out:
        out.write(lines[half][25:] + b"".join(lines[half + 1 :]))
    whole = imported(CLAUDE)
    # Pushed live: the page is never reloaded (how soon is not timed on a shared machine).
    page.wait_for_selector(
        f"[data-testid=last-sequence]:text-is('{whole['events']}')", timeout=20_000
    )
    row = row_of(served, CLAUDE_SESSION)
    assert row is not None
    assert row["events"] == whole["events"]
    assert {"invocations": row["invocations"], "statuses": row["statuses"]} == {
        "invocations": whole["invocations"],
        "statuses": whole["statuses"],
    }
    assert opened.errors == []
    page.close()


def test_a_new_session_file_appears_in_the_list(served: Served, folder: Path, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    opened = Opened(page)
    page.goto(served.link())
    page.wait_for_selector("body[data-ready]", timeout=30_000)
    target = folder / "-home-me-repo" / "appeared" / "subagents"
    target.mkdir(parents=True)
    source = DATA / "gemini-cli" / "session-2025-11-18T06-42-8c2d41e7.jsonl"
    shutil.copy(source, target / source.name)
    page.wait_for_selector(
        "#sessions a[title='8c2d41e7-95ab-4f30-b6d1-0e7a3c5f9b21']", timeout=15_000
    )
    assert opened.errors == []
    page.close()


def test_a_transcript_deleted_while_served_is_one_line_and_the_rest_is_served(
    folder: Path,
) -> None:
    server = Served(folder, "--no-cache")
    try:
        doomed = folder / "-home-me-repo" / "doomed.jsonl"
        shutil.copy(DATA / "mcp" / "traffic-bare.jsonl", doomed)
        session = "-home-me-repo/doomed"  # MCP traffic records no id: its place names it
        wait_for(lambda: row_of(server, session), timeout=10)
        doomed.unlink()
        wait_for(lambda: row_of(server, session) is None, timeout=10)
        assert row_of(server, CODEX_SESSION) is not None
        status, body, _ = server.get(f"/api/v1/sessions/{quote(session, safe='')}")
        assert status == 404 and "no session" in body["error"]
    finally:
        code, stderr = server.stop()
    assert code == 0
    said = [line for line in stderr.splitlines() if "doomed" in line]
    assert len(said) == 1 and "is gone" in said[0], stderr


def test_a_transcript_rewritten_in_place_is_shown_as_it_is_now(tmp_path: Path) -> None:
    # A rewind or a compaction rewrites the file: the session is imported again whole,
    # here with as many events as before, so its length says nothing changed. Every view
    # (the list's title and tokens, the scrubber's calls, the state) shows the new one.
    folder = tmp_path / "projects"
    folder.mkdir()
    path = folder / "rewound.jsonl"
    one_call_session(path, "rewound", tool="Read", tokens=100)
    server = Served(folder, "--cache", str(tmp_path / "cache.sqlite"))

    def seen() -> tuple[object, ...] | None:
        """What the views show, or ``None`` for a row the list has not read whole yet."""
        row = row_of(server, "rewound")
        scrub = server.get("/api/v1/sessions/rewound/scrub", {"at": 6})
        state = server.get("/api/v1/sessions/rewound/state", {"at": 6})
        if row is None or row["tokens"] is None or scrub[0] != 200 or state[0] != 200:
            return None
        return (
            row["events"],
            row["title"],
            row["tokens"]["input"],
            {e.get("tool_name") for e in scrub[1]["events"]} - {None},
            [i["tool_name"] for i in state[1]["invocations"]],
        )

    try:
        assert seen() == (6, "use Read", 100, {"Read"}, ["Read"])
        one_call_session(path, "rewound", tool="Grep", tokens=777)
        wait_for(lambda: seen() == (6, "use Grep", 777, {"Grep"}, ["Grep"]), timeout=10)
    finally:
        assert server.stop()[0] == 0


def test_the_transcripts_are_never_written(tmp_path: Path) -> None:
    folder = tmp_path / "projects"
    shutil.copytree(DATA / "claude-code", folder)

    def digests() -> dict[str, str]:
        """Every entry under the folder (nothing made beside the files) and each file's bytes."""
        return {
            str(p.relative_to(folder)): (
                hashlib.sha256(p.read_bytes()).hexdigest() if p.is_file() else "folder"
            )
            for p in sorted(folder.rglob("*"))
        }

    before = digests()
    server = Served(folder, "--cache", str(tmp_path / "cache.sqlite"))
    try:
        server.answer("/api/v1/sessions")
        server.answer(f"/api/v1/sessions/{CLAUDE_SESSION.replace('/', '%2F')}/state")
        time.sleep(1.2)  # a follower's few looks
    finally:
        assert server.stop()[0] == 0
    assert digests() == before


def test_serve_with_no_source_opens_every_agents_folder_found(tmp_path: Path) -> None:
    home = tmp_path / "home"
    claude = home / ".claude" / "projects" / "-home-me-repo"
    codex = home / ".codex" / "sessions" / "2025" / "11" / "18"
    claude.mkdir(parents=True)
    codex.mkdir(parents=True)
    shutil.copy(CLAUDE, claude / "session.jsonl")
    shutil.copy(CODEX, codex / CODEX.name)
    env = {
        key: value
        for key, value in os.environ.items()
        if key not in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME",
                       "XDG_CONFIG_HOME")
    }  # fmt: skip
    env.update(HOME=str(home), PYTHONPATH=str(ROOT))
    process = subprocess.Popen(
        [sys.executable, "-m", "correx_tools", "serve", "--port", "0", "--no-token", "--json"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env,
    )  # fmt: skip
    try:
        assert process.stdout is not None
        started = json.loads(process.stdout.readline())
        assert started["source"] == "the agents' folders"
        import urllib.request  # noqa: PLC0415 - only here

        with urllib.request.urlopen(f"http://127.0.0.1:{started['port']}/api/v1/sessions") as got:
            rows = json.load(got)["sessions"]
        assert {row["session_id"] for row in rows} == {CLAUDE_SESSION, CODEX_SESSION}
    finally:
        process.terminate()
        _, stderr = process.communicate(timeout=20)
    lines = stderr.splitlines()
    assert any(
        line.endswith(f"Claude Code: {home / '.claude' / 'projects'} (1 files)") for line in lines
    ), stderr
    assert any(f"Codex CLI: {home / '.codex' / 'sessions'}" in line for line in lines), stderr
    assert "Traceback" not in stderr


def test_serve_with_no_source_and_no_agent_is_one_line(tmp_path: Path) -> None:
    env = {**os.environ, "HOME": str(tmp_path), "PYTHONPATH": str(ROOT)}
    for key in ("CLAUDE_CONFIG_DIR", "CODEX_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        env.pop(key, None)
    result = subprocess.run(
        [sys.executable, "-m", "correx_tools", "serve", "--port", "0"],
        capture_output=True, text=True, env=env, timeout=60, check=False,
    )  # fmt: skip
    assert result.returncode == 1
    [line] = result.stderr.strip().splitlines()
    assert "no agent's folder found on this machine" in line
