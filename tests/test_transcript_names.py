"""No transcript hides another: a session whose transcript records no id of its own is named by
where its file lies under the folder read, and ``verify`` names every file it could not show.

The layouts are the ones that used to hide sessions, written by the test from the shared
samples: two Aider repositories both named ``app``, and SWE-agent runs of one task in
sibling folders, each trajectory named after the task. Each is held for ``sessions``,
``serve``'s list and ``verify``; the shared samples as a whole too.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from correx_tools.shell.transcripts import recognising
from correx_tools.shell.transcripts.cache import cache as cache_module
from correx_tools.shell.transcripts.cache import passing
from correx_tools.shell.transcripts.cache.cache import TranscriptCache

from .serving import Served
from .test_cli import run, run_json
from .transcript_samples import DATA

AIDER = DATA / "aider" / "synth" / ".aider.chat.history.md"
AIDER_OTHER = DATA / "aider" / "real" / "hello-world-flask.md"
TRAJECTORY = DATA / "swe-agent" / "ctf_i_got_id_demo.traj"
TRAJECTORY_OTHER = DATA / "swe-agent" / "marshmallow-1867_function_calling.traj"
CLAUDE = DATA / "claude-code" / "short_two_rejections.jsonl"

NAMES = {"work/app", "play/app", "runs/run-1/fix-login", "runs/run-2/fix-login",
         "runs/run-3/fix-login"}  # fmt: skip
"""The sessions of `layout`: each file's place under the folder, without its suffix (an
Aider history's, its repository's)."""


def layout(root: Path) -> Path:
    """Two Aider repositories named ``app``; three runs of one task, in sibling folders, the
    third a copy of the first."""
    for repository, history in (("work", AIDER), ("play", AIDER_OTHER)):
        (root / repository / "app").mkdir(parents=True)
        shutil.copy(history, root / repository / "app" / ".aider.chat.history.md")
    for run_, trajectory in (("run-1", TRAJECTORY), ("run-2", TRAJECTORY_OTHER),
                             ("run-3", TRAJECTORY)):  # fmt: skip
        (root / "runs" / run_).mkdir(parents=True)
        shutil.copy(trajectory, root / "runs" / run_ / "fix-login.traj")
    return root


def listed(source: Path, *options: str) -> dict[str, dict[str, Any]]:
    """``sessions --json`` of SOURCE, by session."""
    document = run_json("sessions", str(source), *options)
    return {row["session_id"]: row for row in document["sessions"]}


@pytest.mark.parametrize("cached", [True, False])
def test_repositories_of_one_name_and_runs_of_one_task_are_each_a_session(
    tmp_path: Path, cached: bool
) -> None:
    root = layout(tmp_path / "agents")
    options = ["--cache", str(tmp_path / "cache.sqlite")] if cached else ["--no-cache"]
    rows = listed(root, *options)
    assert set(rows) == NAMES
    assert (
        rows["runs/run-1/fix-login"]["invocations"]
        == rows["runs/run-3/fix-login"]["invocations"]
        != rows["runs/run-2/fix-login"]["invocations"]
    )
    assert {rows[name]["transcript"]["format"] for name in rows} == {"aider", "swe-agent"}
    # The events verify counts are the sessions' own: each SWE-agent run's outcome among them.
    events = sum(row["events"] for row in rows.values())
    assert sum(row["transcript"]["outcome"] is not None for row in rows.values()) == 3
    checked = run("verify", str(root), *options)
    assert checked.stdout.strip().endswith(
        f"checked 5 sessions, {events} events, 68 invocations: intact"
    )
    assert checked.stderr == ""
    if cached:  # and again, warm: the same answer, nothing read
        assert set(listed(root, *options)) == NAMES
        assert run("verify", str(root), *options).stdout == checked.stdout


def test_the_same_folder_read_from_elsewhere_names_its_sessions_alike(tmp_path: Path) -> None:
    first = layout(tmp_path / "here" / "agents")
    moved = tmp_path / "there" / "deeper" / "agents"
    shutil.copytree(first, moved)
    assert set(listed(first, "--no-cache")) == set(listed(moved, "--no-cache")) == NAMES
    # A folder inside it is a SOURCE of its own: its files are named under it.
    assert set(listed(first / "runs", "--no-cache")) == {
        "run-1/fix-login", "run-2/fix-login", "run-3/fix-login"
    }  # fmt: skip
    # A file named on its own keeps its own name, or its repository's.
    assert set(listed(first / "runs" / "run-2" / "fix-login.traj", "--no-cache")) == {"fix-login"}
    assert set(listed(first / "play" / "app" / ".aider.chat.history.md", "--no-cache")) == {"app"}


def test_serve_lists_every_session_of_the_layout(tmp_path: Path) -> None:
    root = layout(tmp_path / "agents")
    server = Served(root, "--no-cache")
    try:
        rows = server.answer("/api/v1/sessions", limit="100")["sessions"]
        assert {row["session_id"] for row in rows} == NAMES
        for name in NAMES:  # each opens, by its name
            opened = server.answer(f"/api/v1/sessions/{quote(name, safe='')}")
            assert opened["session_id"] == name
    finally:
        server.stop()


def test_every_shared_sample_is_shown_and_verify_says_so(tmp_path: Path) -> None:
    samples = tmp_path / "samples"
    shutil.copytree(DATA, samples)
    cache = ["--cache", str(tmp_path / "cache.sqlite")]
    rows = listed(samples, *cache)
    assert len(rows) == 20
    document = json.loads(run("verify", str(samples), *cache, "--json").stdout)
    assert (document["intact"], document["not_shown"]) == (True, [])


def test_verify_names_a_session_hidden_by_another_and_a_refused_file_every_time(
    tmp_path: Path,
) -> None:
    root = tmp_path / "agents"
    for folder in ("original", "some-copy"):
        (root / folder).mkdir(parents=True)
    shutil.copy(CLAUDE, root / "original" / "session.jsonl")
    # A copy of the same session, cut short, further down the folder: the same id, other
    # events. The first file in path order gives the session; this one is hidden.
    lines = CLAUDE.read_text(encoding="utf-8").splitlines(keepends=True)
    hidden = root / "some-copy" / "session.jsonl"
    hidden.write_text("".join(lines[:3]), encoding="utf-8")
    damaged = root / "damaged.jsonl"
    damaged.write_text(lines[0] + "{not json\n" + lines[1], encoding="utf-8")
    cache = ["--cache", str(tmp_path / "cache.sqlite")]
    for _ in range(2):  # the first look tells it once; verify names it on every run after
        checked = run("verify", str(root), *cache, ok=False)
        assert checked.returncode == 1
        said = checked.stdout.splitlines()
        assert said[0].startswith(f"not shown: {damaged}: line 2: ")
        assert said[1] == (
            f"not shown: {hidden}: session 55604662-cf2a-4331-851a-ec234028f8ca is given by "
            f"{root / 'original' / 'session.jsonl'} too, with other events: only that file's "
            "is shown"
        )
        assert said[2].startswith("checked 1 session, ")
        assert said[2].endswith(": 2 files not shown (above), the rest intact")
    document = json.loads(run("verify", str(root), *cache, "--json", ok=False).stdout)
    assert document["intact"] is False
    assert [entry["file"] for entry in document["not_shown"]] == [str(damaged), str(hidden)]
    # One session asked for is checked alone: the files the rest of SOURCE holds are not its.
    one = run("verify", str(root), "55604662-cf2a-4331-851a-ec234028f8ca", *cache)
    assert one.stdout.strip().endswith(": intact")


def test_a_cache_an_earlier_release_filled_is_read_again_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = layout(tmp_path / "agents")
    path = tmp_path / "cache.sqlite"
    with monkeypatch.context() as earlier:  # the release before: names of files, rules 6
        earlier.setattr(cache_module, "RULES", "rules 6")
        earlier.setattr(passing, "default_name", lambda file, _root: recognising.default_name(file))
        old = TranscriptCache(path, [root])
        told = old.look()
        assert set(old.store.sessions()) == {"app", "fix-login"}
        # The other app and the second run hidden; the third run, a copy of the first, is
        # the same session, shown once.
        assert len(told.refused) == 2
        old.close()
    cache = TranscriptCache(path, [root])
    again = cache.look()
    assert again.read == again.files == 5
    assert set(cache.store.sessions()) == NAMES
    assert sorted(session for _, session in again.removed) == ["app", "fix-login"]
    assert again.refused == []
    assert cache.look().read == 0  # once
    cache.close()
