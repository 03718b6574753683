"""A machine's history in one command: a folder of transcripts, each its own session.

Every transcript under the folder that a reader recognises is imported on its
own, all or nothing; a file that fails is refused with its reason, a file that
is no transcript is skipped with its reason, and neither stops the rest. Run
again, the import writes only what is new. Goose's database is read without a
byte written beside it.
"""

from __future__ import annotations

import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

from correx_tools import InMemoryEventStore, PostgresEventStore, SQLiteEventStore
from correx_tools.shell.transcripts.importing.files import transcript_files
from correx_tools.shell.transcripts.importing.folders import import_folder

from .commands import Ran, correx
from .privileges import as_nobody, open_folder
from .test_terminal import on_terminal
from .transcript_samples import DATA, make_goose_database, samples


def cli(*args: str, status: int = 0) -> Ran:
    result = correx("import-transcript", *args)
    assert "Traceback" not in result.stderr
    assert result.returncode == status, result.stderr
    return result


def summary(document: dict[str, Any]) -> dict[str, int]:
    return document["summary"]  # type: ignore[no-any-return]


def test_every_sample_in_one_command_then_nothing_new(tmp_path: Path) -> None:
    dest = tmp_path / "all.sqlite"
    first = json.loads(cli(str(DATA), str(dest), "--json").stdout)
    sessions = sum(len(s.expected) if "calls" not in s.expected else 1 for s in samples())
    # The new formats' samples, and the older formats' eight; the Gemini chat's two
    # forms are one session, and Goose's database holds the export's session again.
    assert summary(first) == {
        "files": 35, "transcripts": 21, "skipped": 14,
        "sessions_new": sessions + 8 - 2, "sessions_grown": 0,
        "sessions_already_imported": 2, "sessions_refused": 0,
    }  # fmt: skip
    by_file = {Path(f["file"]).relative_to(DATA).as_posix(): f for f in first["files"]}
    assert by_file["cline/tasks/1763448130250/ui_messages.json"]["skipped"].startswith(
        "read with the api_conversation_history.json beside it, for the task's tokens"
    )
    assert [s["session_id"] for s in by_file["goose/sessions.db"]["sessions"]] == [
        "20251118_2", "20251118_3"
    ]  # fmt: skip
    with SQLiteEventStore(dest) as store:
        held = store.count()
        assert len(store.sessions()) == summary(first)["sessions_new"]
    again = cli(str(DATA), str(dest))
    assert f"{DATA} into {dest}: 35 files, 21 transcripts, 14 skipped" in again.stdout
    assert re.search(r"^already imported +22$", again.stdout, re.M)  # counts aligned right
    assert re.search(r"^new +0$", again.stdout, re.M)
    with SQLiteEventStore(dest) as store:
        assert store.count() == held


def test_one_bad_file_is_refused_and_the_rest_imported(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    shutil.copytree(DATA / "codex", folder / "2025" / "11" / "18")
    shutil.copy(DATA / "mcp" / "traffic-bare.jsonl", folder / "traffic.jsonl")
    damaged = folder / "goose" / "20251118_154210.jsonl"
    damaged.parent.mkdir(parents=True)
    lines = (DATA / "goose" / damaged.name).read_text(encoding="utf-8").splitlines(keepends=True)
    lines[5] = "{not json\n"  # a tool's response cut short, in the middle of the file
    damaged.write_text("".join(lines), encoding="utf-8")
    (folder / "notes.md").write_text("# my notes\n", encoding="utf-8")
    (folder / "picture.png").write_bytes(b"\x89PNG")
    (folder / "proxy.log").write_bytes(b"\x00\xff binary, not a transcript\n")
    dest = tmp_path / "out.sqlite"
    result = cli(str(folder), str(dest), status=1)
    assert "refused (nothing written for these):" in result.stdout
    assert f"  {damaged}: line 6: invalid JSON" in result.stdout
    assert f"  {folder / 'notes.md'}: not a transcript of a known format (Markdown" in result.stdout
    assert "picture.png" not in result.stdout  # no transcript's name: never read
    assert f"  {folder / 'proxy.log'}: not UTF-8 text (line 1, byte 1)" in result.stdout
    document = json.loads(cli(str(folder), str(dest), "--json", status=1).stdout)
    assert summary(document)["sessions_already_imported"] == 2
    assert summary(document)["sessions_refused"] == 1
    lenient = json.loads(cli(str(folder), str(dest), "--json", "--lenient").stdout)
    new = [s for f in lenient["files"] for s in f["sessions"] if not s["already_imported"]]
    assert len(new) == 1 and new[0]["skipped_lines"][0]["where"] == "line 6"
    assert new[0]["invocations"] == 13 and new[0]["in_flight"] == 2  # its result was on line 6


def test_pipes_devices_and_names_that_are_not_utf8_are_never_opened(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    shutil.copytree(DATA / "codex", folder)
    os.mkfifo(folder / "live.jsonl")  # opening it would wait for a writer forever
    (folder / "endless.jsonl").symlink_to("/dev/zero")  # reading it would never end
    oddly_named = folder / os.fsdecode(b"rollout-\xff.jsonl")
    shutil.copy(next((DATA / "codex").glob("*.jsonl")), oddly_named)
    document = json.loads(cli(str(folder), str(tmp_path / "out.sqlite"), "--json", status=1).stdout)
    by_file = {f["file"]: f for f in document["files"]}
    assert summary(document)["sessions_new"] == 1
    for name in ("live.jsonl", "endless.jsonl"):
        assert by_file[str(folder / name)]["skipped"].startswith("not a regular file")
    refused = [f for f in document["files"] if f["refused"]]
    assert [f["refused"][0]["message"] for f in refused] == [
        "its name is not UTF-8 text; rename the file to read it"
    ]
    assert refused[0]["file"].endswith("rollout-\\xff.jsonl")
    # Named on their own, as SOURCE or as the transcript to import: one line each.
    for named in (folder / "live.jsonl", oddly_named):
        for command in (["sessions", str(named)], ["import-transcript", str(named), "x.sqlite"]):
            result = correx(*command, cwd=tmp_path)
            assert result.returncode == 1
            assert len(result.stderr.splitlines()) == 1, result.stderr
            assert "not a regular file" in result.stderr or "not UTF-8 text" in result.stderr
    assert not (tmp_path / "x.sqlite").exists()
    # The folder as SOURCE reads the rest.
    listed = correx("sessions", str(folder), "--json", check=True)
    assert len(json.loads(listed.stdout)["sessions"]) == 1


def test_a_store_made_inside_the_folder_never_reads_its_own_staged_file(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"
    shutil.copytree(DATA / "codex", folder)
    document = json.loads(cli(str(folder), str(folder / "all.db"), "--json").stdout)
    assert summary(document)["files"] == 2  # the rollout and its expected.json, nothing else
    assert all(".partial" not in f["file"] for f in document["files"])


def test_a_session_name_for_a_folder_is_refused(tmp_path: Path) -> None:
    result = cli(str(DATA / "mcp"), str(tmp_path / "x.sqlite"), "--session", "one", status=1)
    assert result.stderr.strip() == (
        "correx-tools import-transcript: error: --session names one session, "
        "and a folder holds many"
    )
    assert not (tmp_path / "x.sqlite").exists()
    codex = next((DATA / "codex").glob("rollout-*.jsonl"))
    empty = cli(str(codex), str(tmp_path / "x.sqlite"), "--session", " ", status=1)
    assert "--session names the session: it cannot be empty" in empty.stderr
    assert not (tmp_path / "x.sqlite").exists()


def test_the_store_inside_the_folder_is_never_read_as_a_transcript(tmp_path: Path) -> None:
    folder = tmp_path / "here"
    shutil.copytree(DATA / "goose", folder)
    dest = folder / "imported.jsonl"
    cli(str(folder), str(dest))
    assert dest not in transcript_files(folder, exclude=[dest])[0]
    again = json.loads(cli(str(folder), str(dest), "--json").stdout)
    assert str(dest) not in [f["file"] for f in again["files"]]
    assert summary(again)["sessions_new"] == 0


def fingerprint(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir())}


def test_goose_database_every_session_or_one_and_not_a_byte_written(tmp_path: Path) -> None:
    goose = tmp_path / "goose"
    goose.mkdir()
    shutil.copy(DATA / "goose" / "sessions.db", goose / "sessions.db")
    goose.chmod(0o555)  # a folder nothing can be created in: no journal, no -wal, no -shm
    try:
        before = fingerprint(goose)
        every = json.loads(
            cli(str(goose / "sessions.db"), str(tmp_path / "a.sqlite"), "--json").stdout
        )
        assert summary(every)["sessions_new"] == 2
        one = json.loads(
            cli(str(goose / "sessions.db"), str(tmp_path / "b.sqlite"), "--session", "20251118_3",
                "--json").stdout
        )  # fmt: skip
        assert one["session_id"] == "20251118_3" and one["invocations"] == 13
        missing = cli(str(goose / "sessions.db"), str(tmp_path / "c.sqlite"), "--session", "nope",
                      status=1)  # fmt: skip
        assert "no session 'nope' in it (sessions: 20251118_2, 20251118_3)" in missing.stderr
        assert fingerprint(goose) == before
    finally:
        goose.chmod(0o755)


def test_goose_database_with_a_write_ahead_log_gives_its_newest_messages(tmp_path: Path) -> None:
    database = tmp_path / "sessions.db"
    writer = make_goose_database(database, wal=True)  # Goose still running: the log is its
    try:
        wal = database.with_name("sessions.db-wal")
        assert wal.stat().st_size > 0
        before = fingerprint(tmp_path)
        store = InMemoryEventStore()
        done = import_folder(tmp_path, store)
        [file] = done.files
        assert [s.invocations for s in file.imported] == [13, 13]
        assert fingerprint(tmp_path) == before
    finally:
        writer.close()


def test_a_folder_imports_into_postgresql(postgres_dsn: str, postgres_schema: str) -> None:
    with PostgresEventStore(postgres_dsn, schema=postgres_schema) as store:
        done = import_folder(DATA / "cline", store)
        assert done.count("new") == 2 and done.count("skipped") == 3
        assert set(store.sessions()) == {"1763448130250", "1763448130251"}
        again = import_folder(DATA / "cline", store)
        assert again.count("already") == 2 and again.count("new") == 0


def test_a_folder_on_a_terminal_draws_one_bar_then_the_summary(tmp_path: Path) -> None:
    output = on_terminal("import-transcript", str(DATA), str(tmp_path / "t.sqlite"), cwd=tmp_path)
    assert output.count("importing transcripts (bytes)") >= 1
    bar_ends = output.rindex("importing transcripts (bytes)")
    assert bar_ends < output.index("already imported")  # the summary comes after the bar
    assert f"{DATA} into {tmp_path / 't.sqlite'}: 35 files" in output


def test_a_folder_that_cannot_be_read_is_refused_with_its_reason(tmp_path: Path) -> None:
    paths, unreadable = transcript_files(tmp_path / "gone")
    assert paths == []
    [folder] = unreadable
    assert folder.path == tmp_path / "gone"
    assert folder.refused[0].message == "cannot read this folder (No such file or directory)"


def test_an_unreadable_subfolder_never_stops_the_rest() -> None:
    # As a user without privileges: root reads a folder whatever its mode.
    top = open_folder()
    shutil.copytree(DATA / "mcp", top / "logs" / "mcp")
    locked = top / "logs" / "locked"
    locked.mkdir()
    locked.chmod(0)
    try:
        done = subprocess.run(
            [*as_nobody(), sys.executable, "-m", "correx_tools", "import-transcript",
             str(top / "logs"), str(top / "o.sqlite"), "--json"],
            capture_output=True, text=True, timeout=300, check=False,
        )  # fmt: skip
    finally:
        locked.chmod(0o755)
    try:
        assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr
        result = json.loads(done.stdout)
        assert summary(result)["sessions_new"] == 2
        assert [f["refused"][0]["message"] for f in result["files"] if f["refused"]] == [
            "cannot read this folder (Permission denied)"
        ]
    finally:
        shutil.rmtree(top)


def test_import_of_a_folder_with_a_refused_file_exits_1_and_one_database_is_an_error(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "sessions"
    shutil.copytree(DATA / "codex", folder)
    rollout = next(folder.glob("rollout-*.jsonl"))
    lines = rollout.read_text(encoding="utf-8").splitlines(keepends=True)
    (folder / "broken.jsonl").write_text("".join([*lines[:4], "{not json\n", *lines[5:]]))
    result = correx("import", str(folder), str(tmp_path / "a.sqlite"))
    assert result.returncode == 1, result.stderr
    assert "1 file refused (listed above), not copied" in result.stdout
    assert "; correx-tools import-transcript --lenient imports" in result.stderr
    assert "; --lenient imports" not in result.stderr  # import has no --lenient of its own
    # One SQLite file that holds no transcript is an error, not a summary with it skipped.
    store = tmp_path / "store.sqlite"
    SQLiteEventStore(store).close()
    said = cli(str(store), str(tmp_path / "b.sqlite"), status=1).stderr
    assert said.strip().endswith("a SQLite file, but not a Goose sessions.db"), said
    assert not (tmp_path / "b.sqlite").exists()


def test_a_linked_file_is_read_and_a_linked_folder_is_not_searched(tmp_path: Path) -> None:
    folder, elsewhere = tmp_path / "sessions", tmp_path / "elsewhere"
    shutil.copytree(DATA / "codex", elsewhere)
    folder.mkdir()
    rollout = next(elsewhere.glob("*.jsonl"))
    (folder / "linked.jsonl").symlink_to(rollout)
    (folder / "loop").symlink_to(folder)  # a folder that links back above itself
    (folder / "other").symlink_to(elsewhere)  # the same transcript again, under another name
    found, unreadable = transcript_files(folder)
    assert found == [folder / "linked.jsonl"] and unreadable == []
