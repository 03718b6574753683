"""The command's own output on a real terminal (a pseudo-terminal) and off one.

On a terminal, long work draws a bar on stderr that ends on its own line, and
tables are drawn with colour unless ``NO_COLOR`` is set; anywhere else there is
no bar, no escape code, and the plain tables scripts rely on.
"""

from __future__ import annotations

import fcntl
import os
import pty
import re
import select
import struct
import subprocess
import sys
import termios
from pathlib import Path

import pytest

from correx_tools import JsonlEventLog, SQLiteEventStore

from .commands import correx
from .strategies import completed, requested, started, stored

COLOUR = re.compile(r"\x1b\[[0-9;]*(?:3[0-7]|38;[25];[0-9;]+|9[0-7])m")
ESCAPE = re.compile(r"\x1b\[")


def on_terminal(
    *args: str,
    cwd: Path,
    no_color: bool = False,
    columns: int = 120,
    status: int = 0,
    env: dict[str, str] | None = None,
) -> str:
    """Run the command with stdout and stderr on a new pseudo-terminal, 120 columns wide
    unless told otherwise; it must end with ``status``. ``env`` is set over the test's."""
    primary, secondary = pty.openpty()
    fcntl.ioctl(secondary, termios.TIOCSWINSZ, struct.pack("HHHH", 40, columns, 0, 0))
    given = env or {}
    env = {k: v for k, v in os.environ.items() if k not in ("NO_COLOR", "TERM", "COLUMNS")}
    env["TERM"] = "xterm-256color"
    env.update(given)
    if no_color:
        env["NO_COLOR"] = "1"
    process = subprocess.Popen(
        [sys.executable, "-m", "correx_tools", *args],
        stdin=secondary, stdout=secondary, stderr=secondary, cwd=cwd, env=env,
    )  # fmt: skip
    os.close(secondary)
    chunks = []
    while True:
        ready, _, _ = select.select([primary], [], [], 120)
        if not ready:
            process.kill()
            raise AssertionError("the command hung on the terminal")
        try:
            chunk = os.read(primary, 65536)
        except OSError:  # the terminal closed: the command is done
            break
        if not chunk:
            break
        chunks.append(chunk)
    os.close(primary)
    said = b"".join(chunks).decode("utf-8", "replace")
    assert process.wait(timeout=60) == status, said
    return said


@pytest.fixture(scope="module")
def log(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A JSONL log of 12,000 events: folded on every question, so bars are drawn."""
    events = []
    for number in range(4_000):
        name = f"c{number}"
        events += [requested(name), started(name), completed(name)]
    path = tmp_path_factory.mktemp("terminal") / "long.jsonl"
    JsonlEventLog(path).import_events(stored(events)).unwrap()
    return path


def test_a_bar_counts_to_the_sequence_asked_for_and_ends_before_the_answer(log: Path) -> None:
    output = on_terminal("replay", str(log), "session-1", "--at", "9000", cwd=log.parent)
    assert "replaying session-1" in output and "9000/9000" in output
    assert "/12000" not in output.split("session session-1 at sequence")[0]
    # The answer starts on a line of its own, never on the bar's.
    assert re.search(r"\n(\x1b\[[0-9;?]*[a-zA-Z])*session session-1 at sequence 9000", output)


def test_tables_are_drawn_in_colour_on_a_terminal_unless_no_color(log: Path) -> None:
    coloured = on_terminal("replay", str(log), "session-1", "--limit", "3", cwd=log.parent)
    assert COLOUR.search(coloured) and "─" in coloured and "COMPLETED" in coloured
    plain = on_terminal(
        "replay", str(log), "session-1", "--limit", "3", cwd=log.parent, no_color=True
    )
    assert not COLOUR.search(plain) and "COMPLETED" in plain


def test_the_demo_and_import_show_their_progress(tmp_path: Path, log: Path) -> None:
    demo = on_terminal("demo", "--db", "d.sqlite", "--sessions", "2", "--invocations", "3000",
                       cwd=tmp_path)  # fmt: skip
    assert "writing 6,000 tool calls to d.sqlite" in demo and "6000/6000" in demo
    copied = on_terminal("import", str(log), "copy.sqlite", cwd=tmp_path)
    assert f"copying {log}" in copied and "copied 12,000 events" in copied
    assert SQLiteEventStore(tmp_path / "copy.sqlite", read_only=True).count() == 12_000


def test_off_a_terminal_there_is_no_bar_and_no_escape_code(log: Path) -> None:
    done = correx("replay", str(log), "session-1", "--at", "9000", check=True)
    assert done.stderr == "" and not ESCAPE.search(done.stdout)
    header = done.stdout.splitlines()[2]
    assert header.split()[:3] == ["invocation", "tool", "status"]  # fitted to 80 columns
    assert "did" in header.split() and max(map(len, done.stdout.splitlines()[2:])) <= 80


def test_what_a_session_holds_cannot_steer_the_terminal(tmp_path: Path) -> None:
    hostile = "t\x1b[2J\x1b]0;owned\x07\u202ecod.exe\r"
    path = tmp_path / "hostile.sqlite"
    with SQLiteEventStore(path) as store:
        store.import_events(
            stored([requested("a", tool=hostile), started("a"), requested("b")], session="s")
        ).unwrap()
    plain = correx("replay", str(path), "s", "--wide", check=True)
    for output in (on_terminal("replay", str(path), "s", "--wide", cwd=tmp_path), plain.stdout):
        assert "\x1b[2J" not in output and "\x07" not in output and "\u202e" not in output
        assert "[U+001B][2J" in output and "[U+202E]" in output


def test_a_session_id_with_a_line_break_keeps_each_heading_on_one_line(tmp_path: Path) -> None:
    session = "run\n1\rx"
    path = tmp_path / "breaks.sqlite"
    with SQLiteEventStore(path) as store:
        store.import_events(
            stored([requested("a"), started("a"), completed("a")], session=session)
        ).unwrap()
    commands = [
        ["replay", str(path), session],
        ["stats", str(path), session],
        ["history", str(path), session, "a"],
        ["diff", str(path), session, "0", "3"],
    ]
    for command in commands:
        said = correx(*command, check=True).stdout
        assert "session run[U+000A]1[U+000D]x" in said.splitlines()[0], said


def test_ids_that_would_read_alike_without_their_session_stay_whole(tmp_path: Path) -> None:
    path = tmp_path / "alike.sqlite"
    events = [requested("s1/call-1"), requested("s1:call-1"), requested("s1/call-2")]
    with SQLiteEventStore(path) as store:
        store.import_events(stored(events, session="s1")).unwrap()
    said = correx("replay", str(path), "s1", check=True).stdout
    shown = [line.split()[0] for line in said.splitlines()[3:]]
    assert sorted(shown) == ["call-2", "s1/call-1", "s1:call-1"]
    asked = correx("history", str(path), "s1", "call-1")
    assert asked.returncode == 1 and "s1/call-1" in asked.stderr and "s1:call-1" in asked.stderr
