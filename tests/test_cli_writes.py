"""What the command writes, and what it never touches.

Only ``init-db``, ``import`` and ``demo`` write. Reading commands open their
source read-only: they create no file, no table, and change no byte of the
database. ``import`` is all or nothing across sessions, and a failed import
into a new file leaves no file behind. Every error is one line naming the
file, never a traceback.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from correx_tools import JsonlEventLog, SessionId, SQLiteEventStore
from correx_tools.shell.stores.codec.encoding import encode_line

from .strategies import requested, started, stored
from .test_cli import fails, run, run_json

S1, S2 = SessionId("session-1"), SessionId("session-2")


def digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def tables(path: Path) -> set[str]:
    with sqlite3.connect(path) as connection:
        return {row[0] for row in connection.execute("SELECT name FROM sqlite_master")}


def two_sessions(path: Path) -> None:
    store = SQLiteEventStore(path)
    store.append(S1, [requested("a"), started("a")], expected_sequence=0).unwrap()
    store.append(S2, [requested("b")], expected_sequence=0).unwrap()
    store.close()


# -- reading writes nothing (item 7) ---------------------------------------------------


@pytest.mark.parametrize(
    "command",
    [
        ["sessions", "{f}"],
        ["replay", "{f}", "s"],
        ["history", "{f}", "s", "i"],
        ["diff", "{f}", "s", "0", "1"],
        ["replay-all", "{f}"],
    ],
)
@pytest.mark.parametrize("kind", ["empty file", "unrelated database"])
def test_reading_commands_create_nothing_in_a_file_that_is_not_a_store(
    tmp_path: Path, command: list[str], kind: str
) -> None:
    target = tmp_path / "data.sqlite"
    if kind == "empty file":
        target.touch()
    else:
        with sqlite3.connect(target) as connection:
            connection.execute("CREATE TABLE notes (text TEXT)")
    before, listing = digest(target), sorted(p.name for p in tmp_path.iterdir())
    fails(*[part.format(f=target) for part in command], words="not a correx event store")
    assert digest(target) == before
    assert sorted(p.name for p in tmp_path.iterdir()) == listing
    if kind == "unrelated database":
        assert tables(target) == {"notes"}


def test_reading_a_store_changes_no_byte_of_it(tmp_path: Path) -> None:
    store = tmp_path / "events.sqlite"
    two_sessions(store)
    before = digest(store)
    run("sessions", str(store))
    run("replay", str(store), S1)
    run("history", str(store), S1, "a")
    run("diff", str(store), S1, "0", "2")
    run("replay-all", str(store), "--workers", "2")
    assert digest(store) == before


def test_a_missing_source_is_not_created(tmp_path: Path) -> None:
    fails("sessions", str(tmp_path / "missing.sqlite"), words="no such file")
    assert list(tmp_path.iterdir()) == []


# -- import is all or nothing (item 6) -------------------------------------------------


@pytest.mark.parametrize("suffix", [".sqlite", ".jsonl"])
def test_an_import_that_conflicts_in_its_second_session_writes_nothing(
    tmp_path: Path, suffix: str
) -> None:
    source = tmp_path / "source.sqlite"
    two_sessions(source)
    dest = tmp_path / f"dest{suffix}"
    # The destination already holds invocation "b" (in another session): session 2 conflicts.
    target = JsonlEventLog(dest) if suffix == ".jsonl" else SQLiteEventStore(dest)
    target.append(SessionId("elsewhere"), [requested("b")], expected_sequence=0).unwrap()
    before = digest(dest)
    line = fails("import", str(source), str(dest), words="nothing was imported")
    assert "'b'" in line
    if suffix == ".jsonl":
        assert digest(dest) == before  # not a byte appended, not a byte cut
    reopened = JsonlEventLog(dest) if suffix == ".jsonl" else SQLiteEventStore(dest)
    assert reopened.sessions() == (SessionId("elsewhere"),)


@pytest.mark.parametrize("suffix", [".sqlite", ".jsonl"])
def test_a_failed_import_into_a_new_file_leaves_no_file(tmp_path: Path, suffix: str) -> None:
    # A log written elsewhere whose two sessions request the same id: no store accepts it.
    source = tmp_path / "source.jsonl"
    source.write_bytes(
        b"".join(encode_line(e) for e in stored([requested("same")], session=S1))
        + b"".join(encode_line(e) for e in stored([requested("same")], session=S2))
    )
    dest = tmp_path / "sub" / f"new{suffix}"
    dest.parent.mkdir()
    fails("import", str(source), str(dest), words="already requested")
    assert list(dest.parent.iterdir()) == []


def test_a_retried_import_succeeds_once_the_conflict_is_gone(tmp_path: Path) -> None:
    source = tmp_path / "source.sqlite"
    two_sessions(source)
    dest = tmp_path / "dest.jsonl"
    JsonlEventLog(dest).append(SessionId("x"), [requested("b")], expected_sequence=0).unwrap()
    fails("import", str(source), str(dest), words="nothing was imported")
    dest.unlink()
    assert run_json("import", str(source), str(dest))["events"] == 3


# -- one clear line for every bad input (item 13) --------------------------------------


def test_files_that_are_not_utf8_directories_and_missing_folders_are_one_line(
    tmp_path: Path,
) -> None:
    latin = tmp_path / "tools.json"
    latin.write_bytes('[{"name": "caf\xe9"}]'.encode("latin-1"))
    fails("tools", str(latin), "--to", "mcp", words="not UTF-8")
    fails("validate", str(latin), '{"tool_name": "x", "arguments": {}}', words="not UTF-8")
    fails("tools", str(tmp_path), "--to", "mcp", words="is a directory, not a file")
    fails("sessions", str(tmp_path), words="a folder with no transcripts in it")
    source = tmp_path / "source.sqlite"
    two_sessions(source)
    fails(
        "import", str(source), str(tmp_path / "no" / "such" / "dir.sqlite"), words="does not exist"
    )


# -- what is said of an import never decides whether it is kept -------------------------

TRANSCRIPT = Path(__file__).parent / "data/transcripts/claude-code/short_two_rejections.jsonl"


def _import_with_stdout(dest: Path, stdout: int) -> subprocess.CompletedProcess[bytes]:
    command = [sys.executable, "-m", "correx_tools", "import-transcript", str(TRANSCRIPT)]
    return subprocess.run(
        [*command, str(dest)], stdout=stdout, stderr=subprocess.PIPE, timeout=120, check=False
    )


def test_an_import_whose_reader_stopped_early_is_kept(tmp_path: Path) -> None:
    dest = tmp_path / "new.sqlite"
    reading, writing = os.pipe()
    os.close(reading)  # the reader is gone before a word is said, as `| true` leaves it
    try:
        result = _import_with_stdout(dest, writing)
    finally:
        os.close(writing)
    assert result.returncode == 0, result.stderr
    assert b"Traceback" not in result.stderr
    assert len(SQLiteEventStore(dest, read_only=True).sessions()) == 1


def test_a_full_terminal_is_not_taken_for_a_full_dest(tmp_path: Path) -> None:
    dest = tmp_path / "existing.sqlite"
    run("init-db", str(dest))
    with open("/dev/full", "wb") as full:  # every write to it fails: no space left
        result = _import_with_stdout(dest, full.fileno())
    assert result.returncode == 1
    said = result.stderr.decode()
    assert "Traceback" not in said and len(said.strip().splitlines()) == 1, said
    assert str(dest) not in said and "nothing was written" not in said
    assert "writing standard output: No space left on device" in said
    assert len(SQLiteEventStore(dest, read_only=True).sessions()) == 1


def test_a_failed_import_leaves_an_empty_dest_empty_and_names_dest(tmp_path: Path) -> None:
    dest = tmp_path / "empty.sqlite"
    dest.touch()  # made ready by hand, or by another tool
    damaged = tmp_path / "damaged.jsonl"
    lines = TRANSCRIPT.read_text(encoding="utf-8").splitlines(keepends=True)
    damaged.write_text("".join([*lines[:3], "{not json\n", *lines[3:]]), encoding="utf-8")
    fails("import-transcript", str(damaged), str(dest), words="line 4: invalid JSON")
    assert dest.stat().st_size == 0
    run("import-transcript", str(TRANSCRIPT), str(dest))
    assert len(SQLiteEventStore(dest, read_only=True).sessions()) == 1
    # An event no store can keep (text that is not Unicode: a lone surrogate) is refused
    # naming DEST, not the file staged for it. (One too large is cut to fit instead.)
    lines = TRANSCRIPT.read_text(encoding="utf-8").splitlines(keepends=True)
    huge = tmp_path / "huge.jsonl"
    big = next(n for n, line in enumerate(lines) if '"tool_result"' in line)
    lines[big] = lines[big].replace('"content":"', '"content":"\\ud800', 1)
    huge.write_text("".join(lines), encoding="utf-8")
    new = tmp_path / "new.sqlite"
    said = fails("import-transcript", str(huge), str(new), words="lone surrogate")
    assert f"{new} refused the session" in said and ".partial" not in said
    assert not new.exists()


def test_write_commands_say_what_keeps_them_from_writing(tmp_path: Path) -> None:
    from .privileges import as_nobody, open_folder  # noqa: PLC0415

    folder = open_folder()
    try:
        source = folder / "source.sqlite"
        two_sessions(source)
        read_only = folder / "read-only.sqlite"
        two_sessions(read_only)
        locked = folder / "locked"
        locked.mkdir()
        for path in (source, read_only):
            path.chmod(0o444)
        locked.chmod(0o555)
        said = {}
        for name, command in {
            "read-only reindex": ["reindex", str(read_only)],
            "new SQLite in a locked folder": ["import", str(source), str(locked / "n.sqlite")],
            "new log in a locked folder": ["import", str(source), str(locked / "n.jsonl")],
        }.items():
            result = subprocess.run(
                [*as_nobody(), sys.executable, "-m", "correx_tools", *command],
                capture_output=True, text=True, timeout=120, check=False,
            )  # fmt: skip
            assert result.returncode == 1, (name, result.stderr)
            assert len(result.stderr.splitlines()) == 1, (name, result.stderr)
            said[name] = result.stderr
        assert "cannot be written by this user" in said["read-only reindex"]
        for name in ("new SQLite in a locked folder", "new log in a locked folder"):
            assert ".partial" not in said[name] and "not a SQLite event store" not in said[name]
            assert "cannot be" in said[name] and f"{locked}/n." in said[name]
        assert list(locked.iterdir()) == []
    finally:
        for path in folder.rglob("*"):
            path.chmod(0o755)
        shutil.rmtree(folder, ignore_errors=True)


def test_init_db_refuses_a_jsonl_file_that_is_no_event_log(tmp_path: Path) -> None:
    chat = tmp_path / "chat.jsonl"
    shutil.copy(TRANSCRIPT, chat)
    before = digest(chat)
    fails("init-db", str(chat), words="holds something other than an event log")
    assert digest(chat) == before


def test_a_dest_that_names_a_folder_is_refused(tmp_path: Path) -> None:
    source = tmp_path / "source.sqlite"
    two_sessions(source)
    fails("import", str(source), f"{tmp_path / 'out'}/", words="names a folder")
    assert not (tmp_path / "out").exists()


def test_a_command_started_with_its_output_closed_says_so(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    two_sessions(store)
    for command in (["sessions", str(store)], ["stats", str(store), S1, "--json"]):
        result = subprocess.run(
            [sys.executable, "-m", "correx_tools", *command],
            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=60,
            check=False, close_fds=True, preexec_fn=lambda: os.close(1),
        )  # fmt: skip
        assert result.returncode == 1
        assert result.stderr.strip().endswith("error: standard output is closed"), result.stderr
