"""Rows for transcripts as a SOURCE: a folder of agents' transcripts opened directly.

The folder stands for an agent's own (``~/.claude/projects`` and the like):
``files`` transcripts, most Claude Code sessions, a tenth each Codex rollouts
and Gemini CLI chats, every one a session of its own, about ``size`` bytes
each. The command runs as a person runs it, a fresh process each time, its
modules' bytecode cached as an installed package's is:

* the first open fills the cache (``correx-tools sessions FOLDER``), against
  json.loads of every line of the same files;
* the second open, nothing changed, must take at most a second (``replay FOLDER
  SESSION --at 1``: the open and one question); ``sessions FOLDER`` then is held
  to ``sessions`` of the cache itself (what the look at 1,000 files adds);
* with ``serve`` running over the folder, 1,000 lines appended to one file
  must reach the page's stream (the ``head`` event the page follows) within
  two seconds.
"""

from __future__ import annotations

import json
import subprocess
import time
import urllib.parse
import urllib.request
from pathlib import Path

from correx_tools import InMemoryEventStore, import_transcript

from .baselines import raw_jsonl_loop
from .commands import command
from .table import Row, at_most, installed_environment
from .transcript_files import codex, gemini_lines
from .transcripts import TARGET, claude_code_file

SECOND_OPEN_SECONDS = 1.0
LIVE_SECONDS = 2.0
APPENDED_LINES = 1_000


def agent_folder(root: Path, files: int, size: int) -> Path:
    """``files`` transcripts of about ``size`` bytes each under ``root``, each its own session."""
    templates = {}
    root.mkdir(parents=True, exist_ok=True)
    probe = claude_code_file(root / "probe.jsonl", 100)
    per_call = probe.stat().st_size / 100
    probe.unlink()
    calls = max(1, round(size / per_call))
    templates["claude"] = claude_code_file(root / "claude.template", calls).read_bytes()
    templates["codex"] = codex(root / "codex.template", 2 * calls).read_bytes()
    templates["gemini"] = gemini_lines(root / "gemini.template", 2 * calls).read_bytes()
    for name in ("claude", "codex", "gemini"):
        (root / f"{name}.template").unlink()
    for number in range(files):
        kind = "codex" if number % 10 == 8 else "gemini" if number % 10 == 9 else "claude"
        text = templates[kind]
        if kind == "claude":
            path = root / "claude" / f"-home-me-project-{number % 20}" / f"s-{number:06d}.jsonl"
            text = text.replace(b'"bench-session"', f'"bench-{number:06d}"'.encode(), -1)
        elif kind == "codex":
            path = (
                root
                / "codex"
                / "2026"
                / "01"
                / f"{number % 28 + 1:02d}"
                / f"rollout-{number}.jsonl"
            )
            text = text.replace(b'"id": "bench"', f'"id": "bench-{number:06d}"'.encode(), 1)
        else:
            path = root / "gemini" / f"{number:08x}" / "chats" / f"session-{number}.jsonl"
            text = text.replace(
                b'"sessionId": "bench"', f'"sessionId": "g-{number:06d}"'.encode(), 1
            )
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text)
    return root


def read_folder(root: Path, files: int, size: int) -> tuple[Path, list[Path], int, float]:
    """`agent_folder`, its files, their bytes, and the seconds json.loads of every line
    of them takes (the floor)."""
    folder = agent_folder(root, files, size)
    paths = sorted(folder.rglob("*.jsonl"))
    started = time.perf_counter()
    for path in paths:
        raw_jsonl_loop(path)
    floor = time.perf_counter() - started
    return folder, paths, sum(path.stat().st_size for path in paths), floor


def source_rows(files: int, size: int, directory: Path) -> list[Row]:
    """The first open, the second, and a live file's new lines reaching the page."""
    folder, paths, total, floor = read_folder(directory / "agents", files, size)
    cache = directory / "agents-cache.sqlite"
    first = _run("sessions", str(folder), "--json", "--cache", str(cache))
    session = json.loads(paths[0].read_bytes().split(b"\n", 1)[0])["sessionId"]
    one = ("replay", str(folder), session, "--at", "1", "--json", "--cache", str(cache))
    second = min(_run(*one) for _ in range(3))
    listing = min(_run("sessions", str(folder), "--json", "--cache", str(cache)) for _ in range(3))
    direct = min(_run("sessions", str(cache), "--json") for _ in range(3))
    live = _live(folder, cache, paths[0])
    label = f"{files:,} files, {total / 1e9:.2f} GB"
    return [
        at_most(
            "transcripts as SOURCE: first open (cache filled)",
            label,
            f"{first:.1f} s",
            f"{floor:.1f} s reading the lines + json.loads",
            ratio=first / floor,
            limit=TARGET,
        ),
        Row(
            "transcripts as SOURCE: second open, nothing changed (replay --at 1)",
            label,
            f"{second:.2f} s",
            "-",
            None,
            f"<= {SECOND_OPEN_SECONDS:g} s",
            second <= SECOND_OPEN_SECONDS,
        ),
        Row(
            "transcripts as SOURCE: sessions FOLDER, nothing changed",
            label,
            f"{listing:.2f} s",
            f"{direct:.2f} s: sessions of the cache itself",
            listing / direct,
            "-",
            None,
        ),
        Row(
            f"serve: {APPENDED_LINES:,} lines appended to a live file reach the page",
            f"a file of {paths[0].stat().st_size / 1e6:.1f} MB",
            f"{live:.2f} s",
            "-",
            None,
            f"<= {LIVE_SECONDS:g} s",
            live <= LIVE_SECONDS,
        ),
    ]


def _run(*args: str) -> float:
    """One command, a fresh process: its wall time."""
    started = time.perf_counter()
    subprocess.run(
        [*command(), *args], check=True, capture_output=True, env=installed_environment()
    )
    return time.perf_counter() - started


def _live(folder: Path, cache: Path, live: Path) -> float:
    """Seconds from appending lines to ``live`` to the stream's ``head`` saying so."""
    lines = claude_code_file(folder / "more.template", APPENDED_LINES // 2).read_bytes()
    (folder / "more.template").unlink()
    session = json.loads(live.read_bytes().split(b"\n", 1)[0])["sessionId"]
    lines = lines.replace(b'"bench-session"', json.dumps(session).encode())
    lines = lines.replace(b"toolu_", b"toolu_more_")  # new calls, not the file's own again
    expected = _events(live.read_bytes() + lines)
    process = subprocess.Popen(
        [*command(), "serve", str(folder), "--port", "0", "--no-token", "--cache", str(cache)],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True, env=installed_environment(),
    )  # fmt: skip
    try:
        assert process.stdout is not None
        url = process.stdout.readline().strip().rsplit(" at ", 1)[1]
        stream = f"{url.rstrip('/')}/api/v1/sessions/{urllib.parse.quote(session, safe='')}/stream"
        with urllib.request.urlopen(stream, timeout=30) as heads:
            heads.readline()  # the head as it is now
            with live.open("ab") as out:
                out.write(lines)
            written = time.perf_counter()
            for line in heads:
                if line.startswith(b"data:") and json.loads(line[5:])["last_sequence"] == expected:
                    return time.perf_counter() - written
        raise RuntimeError("the stream ended before the new lines reached it")
    finally:
        process.terminate()
        process.communicate(timeout=30)


def _events(content: bytes) -> int:
    """The events a file of ``content`` gives when imported: its session's last sequence."""
    import tempfile  # noqa: PLC0415 - only here

    with tempfile.NamedTemporaryFile(suffix=".jsonl") as file:
        file.write(content)
        file.flush()
        return import_transcript(file.name, InMemoryEventStore()).unwrap().events
