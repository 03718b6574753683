"""How a run ended, as its harness wrote: read from the run and from what its evaluation
wrote beside it, kept by every store as an event of its own, and noticed when an
evaluation ends after the run was read."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path

import pytest

from correx_tools import InMemoryEventStore, JsonlEventLog, SQLiteEventStore, import_transcript
from correx_tools.core.lifecycle.outcome import (
    MAX_PATCH,
    Outcome,
    outcome_event,
    outcome_of,
    with_patch,
)
from correx_tools.shell.transcripts.common.evaluations import evaluated, is_verdict, task_of
from correx_tools.shell.transcripts.description import session_description
from correx_tools.shell.transcripts.recognising import default_name, load

from .commands import correx
from .test_cli import DATA, run_json

RUNS = DATA / "runs"
MINI = RUNS / "mini-swe-agent-gemini-3-pro" / "trajs" / "django__django-10999"
SWE_AGENT = RUNS / "swe-agent-test-repo-i1" / "run-a_gpt4_2024-04-07_5steps"


def read(path: Path) -> Outcome | None:
    (transcript,) = load(path, "auto", default_name(path))
    return transcript.outcome


def test_a_swe_bench_report_in_the_runs_layout_says_the_verdict() -> None:
    found = read(MINI / "django__django-10999.traj.json")
    assert found is not None
    assert (found.task, found.resolved, found.evaluated_by) == (
        "django__django-10999", False, "report.json"
    )  # fmt: skip
    assert found.submitted is True and found.patch and found.patch.startswith("diff --git")


def test_a_swe_agent_run_says_how_it_stopped_and_its_task_is_its_files_name() -> None:
    found = read(SWE_AGENT / "klieret__swe-agent-test-repo-i1.traj")
    assert found is not None
    assert (found.task, found.exit_status, found.submitted, found.resolved) == (
        "klieret__swe-agent-test-repo-i1", "submitted", True, None
    )  # fmt: skip
    assert found.said == "not evaluated (submitted, a patch)"


@pytest.mark.parametrize(
    ("name", "text", "verdict"),
    [
        ("report.json", {"resolved": True}, True),
        ("report.json", {"t-1": {"resolved": False}, "t-2": {"resolved": True}}, False),
        ("report.json", {"other": 1}, None),  # no SWE-bench report: no verdict
        ("instance_t-1.log", "report: {...}\nResult for t-1: resolved: True\n", True),
        ("eval_instance_t-1.log", "Result for t-2: resolved: True\n", None),  # another task
    ],
)
def test_each_verdict_file_is_read_by_its_own_rule(
    tmp_path: Path, name: str, text: object, verdict: bool | None
) -> None:
    run = tmp_path / "t-1.traj"
    shutil.copy(SWE_AGENT / "klieret__swe-agent-test-repo-i1.traj", run)
    said = text if isinstance(text, str) else json.dumps(text)
    (tmp_path / name).write_text(said, encoding="utf-8")
    found = read(run)
    assert found is not None and found.task == "t-1"
    assert found.resolved is verdict
    assert is_verdict(name)


def test_a_run_no_harness_ran_gets_no_outcome_from_a_report_beside_it(tmp_path: Path) -> None:
    run = tmp_path / "session.jsonl"
    shutil.copy(DATA / "transcripts" / "claude-code" / "short_two_rejections.jsonl", run)
    (tmp_path / "report.json").write_text('{"resolved": true}', encoding="utf-8")
    (transcript,) = load(run, "auto", "session")
    assert evaluated(transcript, run).outcome is None
    assert task_of(run) is None


def test_every_store_keeps_the_outcome_after_the_description(tmp_path: Path) -> None:
    path = MINI / "django__django-10999.traj.json"
    stores = [InMemoryEventStore(), SQLiteEventStore(tmp_path / "s.sqlite"),
              JsonlEventLog(tmp_path / "s.jsonl")]  # fmt: skip
    for store in stores:
        done = import_transcript(path, store).unwrap()
        described = session_description(store, done.session_id)
        assert described is not None and described.outcome == read(path)
        second = list(store.read(done.session_id))[1]
        assert outcome_of(second.event) == described.outcome


def test_an_outcome_reads_back_what_it_wrote_and_cuts_a_patch_too_long_to_keep() -> None:
    outcome = with_patch(Outcome(task="t", cost=0.5, model_calls=3), "+x\n" * MAX_PATCH)
    assert outcome.patch_cut and outcome.patch is not None and len(outcome.patch) == MAX_PATCH
    assert outcome_of(outcome_event(outcome)) == outcome
    assert with_patch(Outcome(), "  \n").submitted is False  # a patch of nothing is none


def test_an_evaluation_that_ends_after_the_run_was_read_is_read_again(tmp_path: Path) -> None:
    folder = tmp_path / "runs"
    shutil.copytree(MINI, folder / "trajs" / "django__django-10999")
    cache = str(tmp_path / "cache.sqlite")

    def verdict() -> object:
        (row,) = run_json("sessions", str(folder), "--cache", cache)["sessions"]
        return row["transcript"]["outcome"]["verdict"]

    assert verdict() == "not evaluated"
    report = folder / "logs" / "django__django-10999" / "report.json"
    report.parent.mkdir(parents=True)
    report.write_text('{"django__django-10999": {"resolved": true}}', encoding="utf-8")
    os.utime(report, ns=(1, 1))  # whatever its time: the cache's stamp holds it
    assert verdict() == "resolved"


def test_sessions_show_the_outcome_as_every_store_keeps_it(tmp_path: Path) -> None:
    # The catalog a database keeps, and the fold of a JSONL log, say the same outcome; the
    # table shows it beside the failures where a listed run has one.
    documents = []
    for name in ("runs.sqlite", "runs.jsonl"):
        store = tmp_path / name
        correx("import-transcript", str(MINI / "django__django-10999.traj.json"), str(store),
               check=True)  # fmt: skip
        (row,) = run_json("sessions", str(store))["sessions"]
        documents.append(row["transcript"]["outcome"])
    assert documents[0] == documents[1]
    assert documents[0]["verdict"] == "unresolved" and documents[0]["evaluated_by"]
    table = correx("sessions", str(tmp_path / "runs.sqlite"), env={"COLUMNS": "160"}).stdout
    header = table.splitlines()[0].split()
    assert header.index("outcome") == header.index("failed") + 1
    assert documents[0]["said"] in table
