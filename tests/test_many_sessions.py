"""Finding and totalling sessions among many: ``sessions`` and ``usage`` on real transcripts
(every agent's shared samples) and on a generated Claude Code folder of many sessions
across projects, days and models, checked against the files' own usage records and against
each session's own ``stats``."""

from __future__ import annotations

import json
from collections import defaultdict
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import pytest

from benchmarks.claude_folder import write_folder
from correx_tools.shell.cli.output.cells import cell_width

from .commands import correx

DATA = Path(__file__).parent / "data" / "transcripts"


class Answer:
    """What one run of the command printed, and its exit status."""

    def __init__(self, status: int, out: str, err: str) -> None:
        self.status, self.out, self.err = status, out, err

    def json(self) -> Any:
        return json.loads(self.out)


@pytest.fixture
def run(tmp_path: Path) -> Any:
    """The command run in this process, with a cache of the test's own (a ``COLUMNS``
    given, or none at all: the width of a table printed where nothing says one)."""
    cache = tmp_path / "cache.sqlite"

    def ran(*argv: str, columns: int | None = None) -> Answer:
        given = [*argv, "--cache", str(cache)] if argv[0] != "stats" else list(argv)
        done = correx(*given, env={"COLUMNS": None if columns is None else str(columns)})
        return Answer(done.returncode, done.stdout, done.stderr)

    return ran


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("claude") / "projects"
    write_folder(root, 60, projects=4, days=9, models=3, turns=3,
                 end=datetime(2026, 12, 1, 12, tzinfo=UTC))  # fmt: skip
    return root


def _usage_records(root: Path) -> list[dict[str, Any]]:
    """Every assistant record's usage as Claude Code wrote it, each message once."""
    seen: set[tuple[str, str]] = set()
    found = []
    for file in sorted(root.rglob("*.jsonl")):
        for line in file.read_text(encoding="utf-8").splitlines():
            record = json.loads(line)
            message = record.get("message") or {}
            key = (message.get("id"), record.get("requestId"))
            if record.get("type") != "assistant" or key in seen:
                continue
            seen.add(key)
            found.append({"at": record["timestamp"], "model": message["model"],
                          "cwd": record["cwd"], **message["usage"]})  # fmt: skip
    return found


def test_the_list_is_most_recent_first_with_ids_any_command_takes(run: Any) -> None:
    listed = run("sessions", str(DATA), "--json")
    assert listed.status == 0, listed.err
    sessions = listed.json()["sessions"]
    assert len(sessions) >= 12
    times = [s["last_time"] for s in sessions if s["last_time"] is not None]
    assert times == sorted(times, reverse=True)
    untimed = [n for n, s in enumerate(sessions) if s["last_time"] is None]
    assert all(n >= len(times) for n in untimed)  # the sessions with no time come last
    # The keys of earlier releases are all still there, and cost beside them.
    assert {"session_id", "events", "invocations", "statuses", "exited_nonzero",
            "refused_events", "transcript", "title", "title_from", "agent", "project", "models",
            "tokens", "said", "first_time", "last_time", "cost"} <= set(sessions[0])  # fmt: skip
    table = run("sessions", str(DATA), columns=200)
    ids = [line.split()[0] for line in table.out.splitlines()[2:]]
    assert len(ids) == len(sessions) == len(set(ids))
    assert all(len(name) >= 8 or any(s["session_id"] == name for s in sessions) for name in ids)
    for name, session in zip(ids, sessions, strict=True):
        assert session["session_id"].startswith(name)
    replayed = run("replay", str(DATA), ids[0], "--json")
    assert replayed.status == 0, replayed.err
    assert replayed.json()["session_id"] == sessions[0]["session_id"]


@pytest.mark.parametrize("columns", [80, 100, 120])
def test_the_table_fits_the_width_given_wide_characters_included(run: Any, columns: int) -> None:
    shown = run("sessions", str(DATA), columns=columns)
    assert shown.status == 0, shown.err
    lines = shown.out.splitlines()
    assert lines[0].split()[:2] == ["id", "when"]
    assert max(cell_width(line) for line in lines) <= columns
    assert any(cell_width(line) != len(line) for line in lines)  # a CJK title is measured wide
    names = {line.split()[0] for line in lines[2:]}
    whole = {s["session_id"] for s in run("sessions", str(DATA), "--json").json()["sessions"]}
    for name in names:  # never cut below a name that tells it apart
        assert sum(1 for s in whole if s.startswith(name)) == 1 or name in whole


def test_wide_shows_every_column_whole(run: Any) -> None:
    shown = run("sessions", str(DATA), "--wide", columns=80)
    header = shown.out.splitlines()[0]
    for column in ("session", "models", "completed", "rejected", "exit ≠ 0", "machine"):
        assert column in header
    every = run("sessions", str(DATA), "--json").json()["sessions"]
    assert all(s["session_id"] in shown.out for s in every)


def test_each_filter_picks_what_it_says(run: Any, folder: Path) -> None:
    every = run("sessions", str(folder), "--json").json()["sessions"]
    assert len(every) == 60
    codex = run("sessions", str(DATA), "--agent", "codex", "--json").json()["sessions"]
    assert codex and {s["agent"] for s in codex} == {"codex"}
    project = run("sessions", str(folder), "--project", "PROJECT-002", "--json").json()
    assert project["total"] == 15
    assert all(s["project"].endswith("project-002") for s in project["sessions"])
    opus = run("sessions", str(folder), "--model", "opus", "--json").json()["sessions"]
    assert opus and all("claude-opus-4-6" in s["models"] for s in opus)
    assert len(opus) == sum(1 for s in every if "claude-opus-4-6" in s["models"])
    failed = run("sessions", str(folder), "--failed", "--json").json()["sessions"]
    assert {s["session_id"] for s in failed} == {
        s["session_id"] for s in every
        if s["statuses"]["failed"] + s["statuses"]["rejected"] + s["exited_nonzero"]
    }  # fmt: skip
    day = run("sessions", str(folder), "--since", "2026-11-28", "--until", "2026-11-29",
              "--tz", "UTC", "--json").json()["sessions"]  # fmt: skip
    low, high = datetime(2026, 11, 28, tzinfo=UTC), datetime(2026, 11, 30, tzinfo=UTC)
    expected = {
        s["session_id"] for s in every
        if _at(s["last_time"]) >= low and _at(s["first_time"]) < high
    }  # fmt: skip
    assert expected and {s["session_id"] for s in day} == expected
    east = run("sessions", str(folder), "--since", "2026-11-28T00:00+05:30", "--json").json()
    assert {s["session_id"] for s in east["sessions"]} == {
        s["session_id"] for s in every if _at(s["last_time"]) >= low - timedelta(hours=5.5)
    }


def _at(text: str) -> datetime:
    return datetime.fromisoformat(text.replace("Z", "+00:00"))


def test_a_limit_says_how_many_more_and_json_honours_it(run: Any, folder: Path) -> None:
    shown = run("sessions", str(folder), "--limit", "5", columns=120)
    lines = shown.out.splitlines()
    assert len(lines) == 2 + 5 + 1
    assert lines[-1] == "55 more: --limit 0 shows all"
    limited = run("sessions", str(folder), "--limit", "5", "--json").json()
    assert (len(limited["sessions"]), limited["total"], limited["limit"]) == (5, 60, 5)
    everything = run("sessions", str(folder), "--limit", "0", "--json").json()
    assert len(everything["sessions"]) == 60


def test_bad_filters_are_one_line_naming_what_is_accepted(run: Any, folder: Path) -> None:
    since = run("sessions", str(folder), "--since", "last tuesday")
    assert since.status == 1
    assert since.err.count("\n") == 1
    assert "--since 'last tuesday': not a date or a time; give a date (2026-12-01" in since.err
    zone = run("usage", str(folder), "--tz", "Mars/Olympus")
    assert zone.status == 1
    assert "no such time zone" in zone.err
    by = run("usage", str(folder), "--by", "fortnight")
    assert by.status == 2
    assert "invalid choice: 'fortnight' (choose from 'day', 'week', 'month'" in by.err
    nothing = run("sessions", str(folder), "--agent", "aider")
    assert nothing.status == 1
    assert nothing.err.strip().endswith("(agents here: claude-code)")


def test_usage_adds_up_the_files_own_usage_records(run: Any, folder: Path) -> None:
    records = _usage_records(folder)
    by_day: dict[str, int] = defaultdict(int)
    for record in records:
        by_day[record["at"][:10]] += record["output_tokens"]
    report = run("usage", str(folder), "--by", "day", "--tz", "UTC", "--json")
    assert report.status == 0, report.err
    rows = report.json()["rows"]
    assert {row["key"]: row["tokens"]["output"] for row in rows} == dict(by_day)
    total = report.json()["total"]["tokens"]
    assert total["input"] == sum(r["input_tokens"] for r in records)
    assert total["cache_read"] == sum(r["cache_read_input_tokens"] for r in records)
    assert total["cache_write"] == sum(r["cache_creation_input_tokens"] for r in records)
    assert report.json()["total"]["unpriced_tokens"] == 0


@pytest.mark.parametrize("by", ["week", "month", "project", "model", "agent", "session", "block"])
def test_every_grouping_adds_up_to_the_same_total(run: Any, folder: Path, by: str) -> None:
    day = run("usage", str(folder), "--json").json()["total"]
    other = run("usage", str(folder), "--by", by, "--json").json()
    assert other["total"] == day
    assert sum(row["tokens"]["total"] for row in other["rows"]) == day["tokens"]["total"]
    assert sum(row["cost"] or 0 for row in other["rows"]) == pytest.approx(day["cost"])


def test_usage_by_session_is_each_sessions_own_stats(run: Any, folder: Path) -> None:
    rows = run("usage", str(folder), "--by", "session", "--json").json()["rows"]
    cache = folder.parent / "stats-cache.sqlite"
    for row in rows[:4]:
        stats = run("stats", str(folder), row["key"], "--json", "--cache", str(cache)).json()
        spent = stats["tokens"]["total"]
        assert {k: spent[k] for k in row["tokens"]} == row["tokens"]
        assert spent["cost"]["usd"] == pytest.approx(row["cost"], abs=1e-6)  # stats rounds
        assert sum(tool["calls"] for tool in stats["tools"]) == row["calls"]


def test_usage_as_csv_has_the_json_rows(run: Any, folder: Path) -> None:
    rows = run("usage", str(folder), "--by", "month", "--json").json()["rows"]
    lines = run("usage", str(folder), "--by", "month", "--csv").out.splitlines()
    assert lines[0].startswith("key,sessions,calls,input,output,cache_read,cache_write")
    assert [line.split(",")[0] for line in lines[1:]] == [r["key"] for r in rows] + ["total"]


def _module(run: Any, folder: Path) -> str:
    """A module the generated sessions work on (their prompts end with its name)."""
    titles = [s["title"] for s in run("sessions", str(folder), "--json").json()["sessions"]]
    return next(t.split()[-1] for t in titles if t.startswith("fix the failing tests in"))


def test_search_finds_a_word_or_a_phrase_in_every_session(run: Any, folder: Path) -> None:
    module = _module(run, folder)
    every = run("search", str(folder), module, "--json").json()["hits"]
    assert every and all(module in hit["snippet"].lower() for hit in every)
    assert {hit["field"] for hit in every} >= {"arguments", "said"}
    assert len({hit["session_id"] for hit in every}) > 1  # across sessions
    said = run("search", str(folder), module, "--in", "said", "--json").json()["hits"]
    assert said and {hit["field"] for hit in said} == {"said"}
    assert all(hit["invocation_id"] is None for hit in said)
    phrase = run("search", str(folder), f'"def {module}_"', "--json").json()["hits"]
    assert phrase and all(f"def {module}_" in hit["snippet"] for hit in phrase)
    apart = run("search", str(folder), f'"{module}_ def"', "--json").json()["hits"]
    assert apart == []  # a phrase is its words in order
    assert set(every[0]) == {"session_id", "invocation_id", "sequence", "field", "snippet",
                             "open", "page"}  # fmt: skip


def test_each_hit_says_how_to_open_it_and_the_command_opens_it(run: Any, folder: Path) -> None:
    [hit] = run("search", str(folder), f'"def {_module(run, folder)}_"', "--in", "arguments",
                "--limit", "1", "--json").json()["hits"]  # fmt: skip
    words = hit["open"].split()
    assert words[:3] == ["correx-tools", "history", str(folder)]
    opened = run(*words[1:], "--json").json()
    assert opened["invocation_id"] == hit["invocation_id"]
    assert hit["page"].startswith(f"/sessions/{hit['session_id']}?at={hit['sequence']}")


def test_search_with_filters_and_a_limit_and_nothing_found(run: Any, folder: Path) -> None:
    module = _module(run, folder)
    picked = run("search", str(folder), "main.py", "--project", "project-001", "--json").json()
    sessions = run("sessions", str(folder), "--project", "project-001", "--json").json()
    allowed = {s["session_id"] for s in sessions["sessions"]}
    assert picked["hits"] and {hit["session_id"] for hit in picked["hits"]} <= allowed
    shown = run("search", str(folder), module, "--limit", "3", columns=100)
    lines = shown.out.splitlines()
    assert lines[0].split() == ["session", "seq", "field", "call", "found"]
    assert len(lines) == 2 + 3 + 2 and lines[-1] == "more hits: --limit 0 shows all"
    assert lines[-2].startswith("open one: correx-tools history ")
    nothing = run("search", str(folder), "zebra-crossing-nowhere")
    assert nothing.status == 1
    assert nothing.out.strip() == "nothing found for zebra-crossing-nowhere"


def test_a_secret_in_a_hit_is_masked_before_it_is_cut(run: Any, tmp_path: Path) -> None:
    root = tmp_path / "projects"
    write_folder(root, 2, projects=1, days=1, turns=1)
    secret = "sk-ant-api03-" + "Zq7_" * 10
    first = sorted(root.rglob("*.jsonl"))[0]
    text = first.read_text(encoding="utf-8").replace("fix the failing", f"key {secret} fix the")
    first.write_text(text, encoding="utf-8")
    found = run("search", str(root), "key", "--in", "said", "--json")
    assert found.json()["hits"] and secret not in found.out
    assert "[REDACTED" in found.json()["hits"][0]["snippet"]


def test_with_no_source_every_agents_folder_is_read(
    run: Any, folder: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    monkeypatch.setenv("CLAUDE_CONFIG_DIR", str(folder.parent))
    for name in ("CODEX_HOME", "GEMINI_CLI_HOME", "XDG_DATA_HOME", "XDG_CONFIG_HOME"):
        monkeypatch.setenv(name, str(home / name.lower()))
    listed = run("sessions", "--json")
    assert listed.status == 0, listed.err
    assert listed.json()["total"] == 60
    assert "Claude Code:" in listed.err  # each folder found said in one line
    session = listed.json()["sessions"][0]["session_id"]
    replayed = run("replay", session[:12], "--json")
    assert replayed.status == 0, replayed.err
    assert replayed.json()["session_id"] == session
    hit = run("search", "main.py", "--limit", "1", "--json").json()["hits"][0]
    assert hit["open"].split()[:2] == ["correx-tools", "history"]
    assert run(*hit["open"].split()[1:], "--json").status == 0
