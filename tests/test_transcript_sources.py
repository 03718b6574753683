"""Transcripts and folders of them as SOURCE: the real command, real files, a real cache.

Every command that takes SOURCE reads a transcript, or a folder of them, as the
store ``import-transcript`` would write: the answers are byte for byte the ones
import-then-ask gives; the transcripts are never written; the cache is said
once and costs a ``stat`` a file afterwards.
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from .commands import Ran, correx
from .privileges import as_nobody, open_folder
from .transcript_samples import DATA, samples

ROOT = Path(__file__).resolve().parent.parent
CODEX = next((DATA / "codex").glob("rollout-*.jsonl"))
CODEX_SESSION = "019a95d1-3c7e-7b22-a4f0-6e1d2c9b8a53"


def run(*args: str, env: dict[str, str] | None = None, ok: bool = True) -> Ran:
    result = correx(*args, cwd=ROOT, env=env)
    if ok:
        assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result


def fails(*args: str, words: str, env: dict[str, str] | None = None) -> str:
    result = run(*args, env=env, ok=False)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert words in lines[0], lines[0]
    return lines[0]


def as_json(*args: str, env: dict[str, str] | None = None) -> Any:
    return json.loads(run(*args, "--json", env=env).stdout)


def digests(folder: Path) -> dict[str, str]:
    """Every file under ``folder`` and its content's digest (what "never written" means)."""
    return {
        str(path.relative_to(folder)): hashlib.sha256(path.read_bytes()).hexdigest()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


@pytest.fixture(scope="module")
def samples_copy(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The shared samples, copied (their bytes are checked afterwards)."""
    folder = tmp_path_factory.mktemp("samples") / "transcripts"
    shutil.copytree(DATA, folder)
    return folder


@pytest.fixture(scope="module")
def imported(samples_copy: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The same samples through ``import-transcript``: what the cache must equal."""
    store = tmp_path_factory.mktemp("imported") / "imported.sqlite"
    run("import-transcript", str(samples_copy), str(store))
    return store


def test_sessions_of_a_folder_are_the_sessions_import_transcript_gives(
    samples_copy: Path, imported: Path, tmp_path: Path
) -> None:
    before = digests(samples_copy)
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    direct = as_json("sessions", str(samples_copy), env=env)
    assert direct["sessions"] == as_json("sessions", str(imported))["sessions"]
    counted = {
        (
            row["transcript"]["format"],
            row["invocations"],
            row["statuses"]["completed"],
            row["statuses"]["failed"],
            row["statuses"]["rejected"],
            row["statuses"]["requested"] + row["statuses"]["started"],
        )
        for row in direct["sessions"]
    }
    for sample in samples():
        stated = sample.expected
        for each in [stated] if "calls" in stated else stated.values():  # a Goose database
            by = each["by_status"]
            assert (sample.format, each["calls"], by["completed"], by["failed"], by["rejected"],
                    by["in_flight"]) in counted, sample.name  # fmt: skip
    assert digests(samples_copy) == before  # read, never written; nothing made beside them
    cached = list((tmp_path / "cache" / "correx-tools" / "sources").glob("*.sqlite"))
    assert len(cached) == 1


def test_the_first_open_says_what_it_skipped_and_the_second_says_nothing(
    samples_copy: Path, tmp_path: Path
) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    first = run("sessions", str(samples_copy), env=env).stderr.splitlines()
    assert first[0].startswith("correx-tools sessions: reading 35 transcript files")
    skipped = [line for line in first if "skipped" in line]
    assert len(skipped) == 11  # ten of the fourteen by name, then how many more
    assert "not a transcript of a known format" in skipped[0]
    assert run("sessions", str(samples_copy), env=env).stderr == ""


def test_replay_of_a_file_is_the_replay_of_its_import(tmp_path: Path) -> None:
    store = tmp_path / "imported.sqlite"
    run("import-transcript", str(CODEX), str(store))
    for question in (
        ["replay", "{}", CODEX_SESSION, "--limit", "0"],
        ["replay", "{}", CODEX_SESSION, "--at", "17"],
        ["history", "{}", CODEX_SESSION, f"{CODEX_SESSION}/call_kCP3"],
        ["diff", "{}", CODEX_SESSION, "3", "30"],
        ["stats", "{}", CODEX_SESSION],
    ):
        direct = as_json(*(a.format(CODEX) for a in question))
        assert direct == as_json(*(a.format(store) for a in question)), question


def test_verify_checks_a_folder_through_its_cache(samples_copy: Path, tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    listed = as_json("sessions", str(samples_copy), env=env)["sessions"]
    checked = as_json("verify", str(samples_copy), env=env)
    assert checked["intact"] is True and checked["repaired"] == []
    assert sorted((row["session_id"], row["events"], row["faults"])
                  for row in checked["sessions"]) == sorted(
        (row["session_id"], row["events"], []) for row in listed
    )  # fmt: skip
    one = as_json("verify", str(CODEX), CODEX_SESSION, "--no-cache")
    assert [row["session_id"] for row in one["sessions"]] == [CODEX_SESSION] and one["intact"]


def test_report_and_export_take_a_transcript(tmp_path: Path) -> None:
    page = tmp_path / "page.html"
    run("report", str(CODEX), CODEX_SESSION, "-o", str(page))
    assert CODEX_SESSION in page.read_text(encoding="utf-8")
    spans = as_json("export", str(CODEX), CODEX_SESSION, "--to", "otlp-json")
    assert "resourceSpans" in json.dumps(spans)


def test_no_cache_leaves_nothing_behind_and_cache_chooses_the_file(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = {"XDG_CACHE_HOME": str(home)}
    assert as_json("sessions", str(CODEX), "--no-cache", env=env)["sessions"]
    assert not home.exists()
    chosen = tmp_path / "mine.sqlite"
    rows = as_json("sessions", str(CODEX), "--cache", str(chosen), env=env)["sessions"]
    assert [row["session_id"] for row in rows] == [CODEX_SESSION]
    assert chosen.is_file() and not home.exists()
    assert as_json("sessions", str(chosen))["sessions"] == rows  # the cache is a store


def test_a_cache_that_is_someones_store_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    store = tmp_path / "mine.sqlite"
    run("import-transcript", str(DATA / "goose" / "20251118_2.json"), str(store))
    before = store.read_bytes()
    fails("sessions", str(CODEX), "--cache", str(store), words="is not a cache of transcripts")
    assert store.read_bytes() == before


def test_a_cache_that_cannot_be_written_gives_way_to_a_temporary_one(tmp_path: Path) -> None:
    blocked = tmp_path / "a-file"
    blocked.write_text("the cache folder cannot be made under a file\n")
    result = run("sessions", str(CODEX), "--json", env={"XDG_CACHE_HOME": str(blocked)})
    assert [row["session_id"] for row in json.loads(result.stdout)["sessions"]] == [CODEX_SESSION]
    [line] = result.stderr.splitlines()
    assert "cannot use the cache" in line and "using a temporary one" in line


def test_a_damaged_cache_of_our_own_is_made_again(tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    run("sessions", str(CODEX), "--no-conversation", env=env)
    [cached] = (tmp_path / "cache" / "correx-tools" / "sources").glob("*.sqlite")
    cached.write_bytes(b"this is not a database any more" * 100)
    result = run("sessions", str(CODEX), "--json", "--no-conversation", env=env)
    assert json.loads(result.stdout)["sessions"][0]["session_id"] == CODEX_SESSION
    assert "making it again" in result.stderr
    assert sqlite3.connect(cached).execute("SELECT COUNT(*) FROM events").fetchone()[0] == 38


@pytest.mark.parametrize(
    ("content", "name", "words"),
    [
        (b"hello, not a database\n" * 10, "notes.txt", "neither an event store nor a transcript"),
        (b"# My notes\n\nsome text\n", "notes.md", "(Markdown, not an Aider history)"),
        (b'{"a": 1}\n{"b": 2}\n', "log.jsonl", "JSON Lines whose first record has a"),
        (b"", "empty.sqlite", "an empty file, not a correx event store nor a transcript"),
        (b"", "empty.json", "an empty file, not a correx event store nor a transcript"),
        (b"  \n\n \n", "blank.jsonl", "a transcript of a known format (only blank lines)"),
    ],
)
def test_a_file_that_is_neither_a_store_nor_a_transcript_says_so_in_one_line(
    tmp_path: Path, content: bytes, name: str, words: str
) -> None:
    path = tmp_path / name
    path.write_bytes(content)
    line = fails("sessions", str(path), words=words)
    assert "expected" in line or "init-db" in line


def test_an_empty_log_stays_an_empty_log(tmp_path: Path) -> None:
    path = tmp_path / "empty.jsonl"
    path.write_bytes(b"")
    assert as_json("sessions", str(path))["sessions"] == []


def test_a_folder_with_no_transcripts_says_what_was_expected_in_one_short_line(
    tmp_path: Path,
) -> None:
    empty = tmp_path / "empty"
    empty.mkdir()
    line = fails("sessions", str(empty), words="a folder with no transcripts in it; expected")
    assert ".jsonl" in line and "sqlite" not in line and "claude-code" not in line
    assert len(line) - len(str(empty)) <= 160, line
    (tmp_path / "notes").mkdir()
    (tmp_path / "notes" / "todo.md").write_text("# nothing an agent wrote\n", encoding="utf-8")
    line = fails("sessions", str(tmp_path / "notes"), words="none of its 1 file is one")
    assert len(line) - len(str(tmp_path / "notes")) <= 160, line


def test_a_damaged_transcript_given_alone_is_one_line_naming_the_line(tmp_path: Path) -> None:
    lines = CODEX.read_bytes().splitlines(keepends=True)
    path = tmp_path / "rollout.jsonl"
    path.write_bytes(b"".join(lines[:5]) + b"{not json\n" + b"".join(lines[5:]))
    fails("sessions", str(path), words="line 6")


def test_a_folder_whose_transcripts_are_all_damaged_names_the_first_and_counts_the_rest(
    tmp_path: Path,
) -> None:
    # Before, such a folder said it held no transcript of a known format.
    lines = CODEX.read_bytes().splitlines(keepends=True)
    folder = tmp_path / "sessions"
    folder.mkdir()
    for name in ("a.jsonl", "b.jsonl"):
        (folder / name).write_bytes(b"".join(lines[:5]) + b"{not json\n" + b"".join(lines[5:]))
    line = fails("sessions", str(folder), words="no transcript in it could be read: ")
    assert "a.jsonl: line 6: invalid JSON" in line and line.endswith("(1 more refused)"), line
    assert "known format" not in line


def test_a_question_about_a_large_jsonl_log_says_once_how_to_copy_it_into_sqlite(
    tmp_path: Path,
) -> None:
    run("demo", "--db", str(tmp_path / "demo.sqlite"), "--sessions", "1", "--invocations", "5000")
    log = tmp_path / "run.jsonl"
    run("import", str(tmp_path / "demo.sqlite"), str(log))
    assert log.stat().st_size > 4_000_000
    said = run("sessions", str(log)).stderr.splitlines()
    assert len(said) == 1 and "keeps no index" in said[0]
    assert f"correx-tools import {log} {log.with_suffix('.sqlite')}" in said[0]
    assert run("import", str(log), str(tmp_path / "copy.sqlite")).stderr == ""  # the copy itself
    small = tmp_path / "small.jsonl"
    run("import", str(tmp_path / "copy.sqlite"), str(small))
    small.write_bytes(b"".join(small.read_bytes().splitlines(keepends=True)[:50]))
    assert run("sessions", str(small)).stderr == ""


def test_a_folder_that_cannot_be_read_is_one_line() -> None:
    # As a user without privileges: root reads a folder whatever its mode.
    folder = open_folder() / "locked"
    folder.mkdir()
    shutil.copy(CODEX, folder / CODEX.name)
    folder.chmod(0)
    try:
        result = subprocess.run(
            [*as_nobody(), sys.executable, "-m", "correx_tools", "sessions", str(folder),
             "--no-cache"],
            capture_output=True, text=True, timeout=300, check=False, cwd=ROOT,
        )  # fmt: skip
    finally:
        folder.chmod(0o755)
        shutil.rmtree(folder.parent)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    [line] = result.stderr.strip().splitlines()
    assert "cannot read this folder" in line and str(folder) in line


def test_a_cache_an_older_release_wrote_is_made_again(tmp_path: Path) -> None:
    env = {"XDG_CACHE_HOME": str(tmp_path / "cache")}
    run("sessions", str(CODEX), "--no-conversation", env=env)
    [cached] = (tmp_path / "cache" / "correx-tools" / "sources").glob("*.sqlite")
    shutil.copy(ROOT / "tests" / "data" / "layout-v2.sqlite", cached)  # release 0.2's successor
    connection = sqlite3.connect(cached)
    connection.execute(
        "CREATE TABLE correx_transcript_files (path TEXT PRIMARY KEY, stamp TEXT NOT NULL, "
        "sessions TEXT NOT NULL, shared TEXT NOT NULL, state TEXT NOT NULL, reason TEXT NOT NULL)"
    )
    connection.commit()
    connection.close()
    result = run("sessions", str(CODEX), "--json", env=env)
    assert [row["session_id"] for row in json.loads(result.stdout)["sessions"]] == [CODEX_SESSION]
    assert "written by an older release" in result.stderr and "making it again" in result.stderr
