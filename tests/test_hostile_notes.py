"""The notes a command prints on stderr cannot steer the terminal, as its tables cannot.

A folder of transcripts names its files, and its transcripts name their
sessions: both reach the notes ``sessions FOLDER`` and ``serve FOLDER`` print
(a file skipped, a session two files give). A real Claude Code transcript
whose session id holds escape sequences (retitle the window, clear the
screen) and a file whose name holds one are shown with each control
character written as ``[U+XXXX]``, never raw.
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from correx_tools.shell.cli.sources.transcripts import note

from .commands import correx
from .serving import Served
from .transcript_samples import DATA

CLAUDE = DATA / "claude-code" / "short_two_rejections.jsonl"
SESSION = "55604662-cf2a-4331-851a-ec234028f8ca"
HOSTILE = "s\x1b]0;pwned\x07\x1b[2Jid"
# Anything a terminal acts on: C0 controls but the line's end, DEL, C1, direction controls.
STEERING = re.compile("[\x00-\x09\x0b-\x1f\x7f-\x9f\u061c\u200e\u200f\u202a-\u202e\u2066-\u2069]")


@pytest.fixture
def folder(tmp_path: Path) -> Path:
    """A project folder: a file named with an escape sequence, and two copies of a real
    transcript whose session id holds escape sequences, one cut short (so the two give the
    same session with other events)."""
    project = tmp_path / "agents" / "-home-me-repo"
    project.mkdir(parents=True)
    (project / "notes\x1b[31mred.jsonl").write_text("just some words\n")
    # The id written as JSON escapes, as a transcript holds it; read, it is the raw characters.
    text = CLAUDE.read_text().replace(SESSION, "s\\u001b]0;pwned\\u0007\\u001b[2Jid")
    (project / "whole.jsonl").write_text(text)
    (project / "cut.jsonl").write_text("".join(text.splitlines(keepends=True)[:8]))
    return tmp_path / "agents"


def _shown_safely(stderr: str) -> None:
    assert STEERING.search(stderr) is None, stderr
    assert "notes[U+001B][31mred.jsonl" in stderr
    assert "session s[U+001B]]0;pwned[U+0007][U+001B][2Jid is given by" in stderr


def test_sessions_of_a_folder_notes_each_name_as_text(folder: Path) -> None:
    done = correx("sessions", str(folder), "--no-cache")
    assert done.returncode == 0, done.stderr
    _shown_safely(done.stderr)
    # The table too: its short name (the start no other id shares) shown as text.
    assert HOSTILE not in done.stdout and "s[U+001B]]0;pwn" in done.stdout


def test_serve_of_a_folder_notes_each_name_as_text(folder: Path) -> None:
    served = Served(folder, "--no-cache")
    rows = served.answer("/api/v1/sessions")["sessions"]
    assert [row["session_id"] for row in rows] == [HOSTILE]  # the page sets it as text
    status, stderr = served.stop()
    assert status == 0
    _shown_safely(stderr)


@given(st.text())
def test_a_note_is_one_line_of_text_whatever_it_says(said: str) -> None:
    with contextlib.redirect_stderr(io.StringIO()) as err:
        note(said, "correx-tools serve")
    line = err.getvalue()
    assert line.startswith("correx-tools serve: ") and line.endswith("\n")
    assert line.count("\n") == 1 and STEERING.search(line) is None
