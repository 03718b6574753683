"""Output a person reads at a glance: counts, durations, tables that fit, errors that name
files, and ``--json`` that is the same bytes from run to run.

The command runs in this process (`commands.correx`), as a real process on a
pseudo-terminal where it draws and in a fresh process for each hash seed;
the rules themselves are held to their properties with Hypothesis.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
from datetime import timedelta
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from correx_tools import SessionId, SQLiteEventStore
from correx_tools.shell.cli.output.readable import ELLIPSIS, counted, cut_middle, duration

from .strategies import completed, failed, requested, started
from .test_first_hour import run
from .test_terminal import on_terminal

ROOT = Path(__file__).resolve().parent.parent
DATA = ROOT / "correx_tools" / "shell" / "cli" / "data"
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    directory = tmp_path_factory.mktemp("readable")
    done = run("demo", "--db", "demo.sqlite", "--sessions", "2", "--invocations", "1200",
               cwd=directory)  # fmt: skip
    assert done.returncode == 0, done.stderr
    return directory / "demo.sqlite", done.stdout


# -- durations -----------------------------------------------------------------

UNITS = {"µs": 1, "ms": 1_000, "s": 1_000_000, "min": 60_000_000, "h": 3_600_000_000,
         "d": 86_400_000_000}  # fmt: skip
SAID = re.compile(r"-?\d+(\.\d)? (µs|ms|s|min|h|d)( \d+ (s|min|h))?")


def parsed(text: str) -> tuple[float, float]:
    """The microseconds ``text`` says, and the most its rounding can be off by."""
    sign = -1 if text.startswith("-") else 1
    words = text.lstrip("-").split()
    total, smallest = 0.0, 0.0
    for number, unit in zip(words[::2], words[1::2], strict=True):
        total += float(number) * UNITS[unit]
        smallest = UNITS[unit] / (10 if "." in number else 1)
    return sign * total, smallest / 2


@given(st.integers(-(10**14), 10**14))
def test_a_duration_parses_back_within_its_rounding(micro: int) -> None:
    text = duration(timedelta(microseconds=micro))
    assert SAID.fullmatch(text), text
    value, off_by = parsed(text)
    assert abs(value - micro) <= off_by
    second = re.search(r" \d+ (min|h|d) (\d+) (s|min|h)$", text)
    if second is not None:  # the smaller unit never reaches one of the larger
        assert int(second.group(2)) < (24 if second.group(1) == "d" else 60)


def test_durations_read_as_a_person_says_them() -> None:
    said = {
        timedelta(hours=4, minutes=6): "4 h 6 min",
        timedelta(days=2, hours=3): "2 d 3 h",
        timedelta(milliseconds=850): "850 ms",
        timedelta(minutes=6165.9): "4 d 7 h",
        timedelta(seconds=59.96): "1 min",
        timedelta(milliseconds=999.6): "1.0 s",
        timedelta(0): "0 s",
    }
    assert {span: duration(span) for span in said} == said


def test_the_pages_say_durations_as_the_command_does(chromium: Any) -> None:
    script = (DATA.parent.parent / "report" / "page.js").read_text("utf-8")
    values = [0, 1, 420, 999, 1_000, 999_499, 999_500, 12_440_000, 59_960_000, 252_000_000,
              14_760_000_000, 183_600_000_000, 369_954_000_000, 86_399_999_999,
              -1, -50_000_000, -252_000_000]  # fmt: skip
    page = chromium.new_page()
    try:
        page.add_script_tag(content=script)
        said = page.evaluate("(values) => values.map((us) => CX.dur(us))", values)
    finally:
        page.close()
    assert said == [duration(timedelta(microseconds=us)) for us in values]


# -- counts and long text ----------------------------------------------------------


@given(st.text(min_size=0, max_size=80).filter(lambda t: ELLIPSIS not in t), st.integers(2, 60))
def test_the_middle_ellipsis_keeps_both_ends_and_the_width(text: str, width: int) -> None:
    cut = cut_middle(text, width)
    if len(text) <= width:
        assert cut == text
        return
    assert len(cut) == width and cut.count(ELLIPSIS) == 1
    head, tail = cut.split(ELLIPSIS)
    assert text.startswith(head) and text.endswith(tail)
    assert len(head) - len(tail) in (0, 1)


def test_counts_have_separators_and_one_is_singular() -> None:
    assert counted(30_123, "event") == "30,123 events"
    assert counted(1, "session") == "1 session"


def test_the_demo_and_replay_count_with_separators(demo: tuple[Path, str]) -> None:
    path, said = demo
    assert re.search(r"^wrote \d{1,2},\d{3} events in 2 sessions to ", said, re.M)
    assert "illegal events refused" not in said.split("time travel")[0] or "0 illegal" not in said
    assert "no illegal events: the session replays strictly" in said
    assert re.search(r"demo-run01-session-1 +\d,\d{3} +none", said)
    replayed = run("replay", str(path), "demo-run01-session-1", "--limit", "2").stdout
    assert "1,200 invocations (" in replayed and "the last 2 of 1,200 invocations" in replayed
    listed = run("sessions", str(path), "--wide").stdout
    # No agent, project or title; its events and calls with separators.
    assert re.search(r"demo-run01-session-1 .* +- +- +- +- +\d,\d{3} +1,200 ", listed)


def test_import_says_one_session_and_counts_with_separators(
    demo: tuple[Path, str], tmp_path: Path
) -> None:
    path, _ = demo
    copied = run("import", str(path), str(tmp_path / "all.jsonl")).stdout
    assert re.match(r"copied \d{1,2},\d{3} events in 3 sessions from ", copied)
    with SQLiteEventStore(tmp_path / "single.sqlite") as store:
        store.append(SessionId("s"), [requested("a"), started("a")], expected_sequence=0).unwrap()
    one = run("import", str(tmp_path / "single.sqlite"), str(tmp_path / "one.jsonl")).stdout
    assert one.startswith("copied 2 events in 1 session from ")


# -- tables ------------------------------------------------------------------------


def long_reason_store(path: Path) -> str:
    reason = "permission denied while opening\n" + "x" * 200 + " at the very end"
    with SQLiteEventStore(path) as store:
        events = [requested("s/" + "long-" * 20 + "id"), started("s/" + "long-" * 20 + "id")]
        events.append(failed("s/" + "long-" * 20 + "id", reason=reason))
        events += [requested("s/short"), started("s/short"), completed("s/short")]
        store.append(SessionId("s"), events, expected_sequence=0).unwrap()
    return reason


def table_of(output: str) -> list[str]:
    lines = output.splitlines()
    start = next(i for i, line in enumerate(lines) if line.lstrip().startswith("invocation"))
    return [line for line in lines[start:] if line.strip()]


def test_wide_keeps_each_cell_whole_on_one_line(tmp_path: Path) -> None:
    path = tmp_path / "long.sqlite"
    reason = long_reason_store(path)
    shown = run("replay", str(path), "s", "--wide", env={"COLUMNS": "60"}).stdout
    rows = table_of(shown)
    assert len(rows) == 4  # header, rule, two invocations: a reason's newline is a space
    assert rows[2].startswith("long-" * 20 + "id ") and rows[2].endswith(" ".join(reason.split()))
    assert re.search(r"^short ", rows[3]) and "s/short" not in shown  # no session prefix
    document = json.loads(run("replay", str(path), "s", "--json").stdout)
    assert document["invocations"][0]["reason"] == reason


def test_a_table_on_a_terminal_fits_it_ids_cut_to_a_name_any_command_takes(
    tmp_path: Path,
) -> None:
    path = tmp_path / "long.sqlite"
    long_reason_store(path)
    drawn = ESCAPES.sub("", on_terminal("replay", str(path), "s", cwd=tmp_path, columns=80))
    rows = table_of(drawn.replace("\r", ""))
    assert len(rows) == 4 and all(len(row.rstrip()) <= 80 for row in rows), rows
    cut = rows[2].split()
    # The id is cut at its end, with no ellipsis, to a start that names it alone.
    assert cut[0].startswith("long-") and len(cut[0]) < len("long-" * 20 + "id")
    named = json.loads(run("history", str(path), "s", cut[0], "--json").stdout)
    assert named["invocation_id"] == "s/" + "long-" * 20 + "id"
    assert cut[1:3] == ["read_file", "FAILED"]
    detail = rows[2][rows[2].index("permiss") :].rstrip()
    assert detail.endswith("…") and len(detail) < 40  # the reason, cut at its end


def test_diff_and_the_demos_walk_name_invocations_without_the_session(
    demo: tuple[Path, str],
) -> None:
    path, said = demo
    walk = said.split("time travel", 1)[1].split("a real session", 1)[0]
    assert "demo-run01-session-1/" not in walk and "call-000" in walk
    diffed = run("diff", str(path), "demo-run01-session-1", "0", "30").stdout
    assert "demo-run01-session-1/" not in diffed and "call-00000" in diffed


# -- errors and --json -------------------------------------------------------------


def test_an_error_names_the_store_never_an_objects_repr(tmp_path: Path) -> None:
    path = tmp_path / "clash.sqlite"
    with SQLiteEventStore(path) as store:
        store.append(SessionId("other"), [requested("x/toolu_01TfDS8UjxxjY4dzV8esUMzm")],
                     expected_sequence=0).unwrap()  # fmt: skip
    done = run("import-transcript", str(DATA / "claude_code_subagent.jsonl"), str(path),
               "--session", "x")  # fmt: skip
    assert done.returncode == 1
    assert f"{path} refused the session" in done.stderr
    assert "object at 0x" not in done.stderr and "<" not in done.stderr


TIMES = re.compile(r'"(seconds|write_seconds|replay_seconds)": [0-9.e-]+')


# Each command run in the process of its hash seed (one a seed: what varies is the seed).
_UNDER_ONE_SEED = """
import json, sys
from tests.commands import correx
done = [correx(*command) for command in json.loads(sys.argv[1])]
print(json.dumps([[d.returncode, d.stdout, d.stderr] for d in done]))
"""


@pytest.mark.slow  # eighteen commands run twice, in a fresh process for each hash seed
def test_json_is_the_same_bytes_whatever_the_hash_seed(
    demo: tuple[Path, str], tmp_path: Path
) -> None:
    path, _ = demo
    source, log = str(path), str(tmp_path / "log.jsonl")
    assert run("import", source, log).returncode == 0
    tools = (
        '[{"name": "read_file", "description": "Read.", "parameters": {"type": "object", '
        '"properties": {"path": {"type": "string"}, "mode": {"type": "string"}}}}]'
    )
    session = "demo-run01-session-2"
    asked = [
        ["sessions", source], ["sessions", log],
        ["replay", source, session, "--lenient"], ["replay", log, session, "--lenient"],
        ["history", source, session, "call-00077"], ["diff", source, session, "0", "900"],
        ["diff", log, session, "0", "900", "--summary"],
        ["diff", source, session, "0", "900", "--summary"],
        ["stats", source, session, "--lenient"], ["export", source, session, "--lenient"],
        ["report", source, session, "--lenient", "-o", "{dir}/report.html"],
        ["validate", tools, '{"tool_name": "read_file", "arguments": {"path": 1, "mode": 2}}'],
        ["tools", tools, "--to", "mcp"], ["replay-all", source, "--lenient"],
        ["import", source, "{dir}/copy.sqlite"], ["init-db", "{dir}/new.sqlite"],
        ["import-transcript", str(DATA / "claude_code_subagent.jsonl"), "{dir}/t.sqlite"],
        ["reindex", "{dir}/copy.sqlite"],
    ]  # fmt: skip
    outputs = []
    for seed in ("1", "2"):
        work = tmp_path / f"seed-{seed}"
        work.mkdir()
        printed = []
        commands = [[a.replace("{dir}", str(work)) for a in [*c, "--json"]] for c in asked]
        answers = subprocess.run(
            [sys.executable, "-c", _UNDER_ONE_SEED, json.dumps(commands)], cwd=ROOT,
            env={**os.environ, "PYTHONHASHSEED": seed, "PYTHONPATH": str(ROOT)},
            capture_output=True, text=True, timeout=600, check=True,
        )  # fmt: skip
        for command, (status, stdout, stderr) in zip(
            asked, json.loads(answers.stdout), strict=True
        ):
            assert status in (0, 1) and stdout, (command, stderr)
            assert "Traceback" not in stderr, stderr
            for line in stdout.splitlines():  # one document (export: one a line)
                json.loads(line)
            printed.append(TIMES.sub("TIME", stdout.replace(str(work), "DIR")))
        printed.append((work / "report.html").read_text("utf-8"))
        outputs.append(printed)
    for command, first, second in zip([*asked, ["report.html"]], *outputs, strict=True):
        assert first == second, command
