"""Every view shows what happened, and only that: a non-zero exit marked, no made-up exit
code or time, no diff for an edit that did not take effect, a cut value said.

The sessions are the real samples of ``data/transcripts/`` (each with its
PROVENANCE.txt): the OpenHands run whose ``str_replace`` answered ``No
replacement was performed``, Aider's history and bare MCP traffic (neither
records a time for its steps), and the Claude Code subagent written as Claude
Code writes a command that exited 1 and an output too large to store
(`recorded_samples`). They are imported once into a SQLite store, so the
commands answer from its index; the command runs in this process (as a real one on a
pseudo-terminal), and the report is opened in Chromium.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from .browsing import Opened, module_browser
from .commands import correx
from .recorded_samples import CLAUDE_SESSION, FIND, LS, READ, exited_and_cut
from .serving import Served
from .test_terminal import on_terminal
from .transcript_samples import DATA

ROOT = Path(__file__).resolve().parent.parent
PONY = "ponylang__ponyc-4595"
NO_REPLACEMENT = "toolu_12"  # str_replace: "ERROR: No replacement was performed, ..."
REPLACED = "toolu_14"  # the str_replace that took, with its diff
UNTIMED = ("aider", "traffic-bare")  # an Aider history in a folder "aider"; bare MCP traffic
MADE_UP = "2000-01-01"
"""Where the importers start the stand-in times of a transcript that records none."""
RED = re.compile(r"\x1b\[(?:[0-9;]*;)?31m")
"""The colour ``rich`` draws a failure in."""

browser = module_browser()


def run(*args: str, cwd: Path = ROOT) -> str:
    result = correx(*args, cwd=cwd)
    assert result.returncode == 0, result.stderr
    return result.stdout


def asked(*args: str) -> Any:
    return json.loads(run(*args, "--json"))


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("recorded") / "agents"
    (folder / "aider").mkdir(parents=True)
    shutil.copy(
        DATA / "aider" / "real" / "hello-world-flask.md",
        folder / "aider" / ".aider.chat.history.md",
    )
    shutil.copy(DATA / "mcp" / "traffic-bare.jsonl", folder)
    shutil.copy(DATA / "openhands" / f"multi_swe_bench_{PONY}.json", folder)
    exited_and_cut(folder / "claude.jsonl")
    dest = folder.parent / "agents.sqlite"
    run("import-transcript", str(folder), str(dest))
    return dest


def records(store: Path, session: str) -> dict[str, dict[str, Any]]:
    """``replay --json``: each call, by its id without the session."""
    document = asked("replay", str(store), session)
    return {r["invocation_id"].rpartition("/")[2]: r for r in document["invocations"]}


# -- a non-zero exit ----------------------------------------------------------------------


def test_a_non_zero_exit_is_counted_beside_failed_by_every_command(store: Path) -> None:
    [row] = [r for r in asked("sessions", str(store))["sessions"]
             if r["session_id"] == CLAUDE_SESSION]  # fmt: skip
    # Completed, as the import rules say; and counted as what it is.
    assert row["statuses"]["completed"] == 25 and row["statuses"]["failed"] == 8
    assert row["exited_nonzero"] == 1
    table = run("sessions", str(store), "--wide").splitlines()
    column = table[0].index("exit ≠ 0")
    assert table[0][:column].rstrip().endswith("open")  # among the statuses, after failed
    row_text = next(line for line in table if line.startswith(CLAUDE_SESSION))
    assert row_text[column : column + len("exit ≠ 0")].strip() == "1"
    compact = run("sessions", str(store)).splitlines()
    failed = compact[0].index("failed") + len("failed")
    row_text = next(line for line in compact if CLAUDE_SESSION.startswith(line.split()[0]))
    assert row_text[:failed].split()[-1] == "9"  # 8 failed and 1 exited non-zero
    replayed = asked("replay", str(store), CLAUDE_SESSION)
    assert replayed["exited_nonzero"] == 1
    assert [r["receipt"]["exit_code"] for r in replayed["invocations"]
            if r["invocation_id"].endswith(FIND)] == [1]  # fmt: skip
    assert asked("replay", str(store), CLAUDE_SESSION, "--at", "84")["exited_nonzero"] == 0
    said = run("replay", str(store), CLAUDE_SESSION)
    assert "25 completed, 1 of them exited non-zero, 8 failed" in said
    stats = asked("stats", str(store), CLAUDE_SESSION)
    assert stats["exited_nonzero"] == 1
    assert {t["tool_name"]: t["exited_nonzero"] for t in stats["tools"]} == {
        "Bash": 1, "Glob": 0, "Grep": 0, "Read": 0
    }  # fmt: skip


def test_an_import_counts_the_non_zero_exits_beside_the_completed(tmp_path: Path) -> None:
    transcript = exited_and_cut(tmp_path / "claude.jsonl")
    said = run("import-transcript", str(transcript), str(tmp_path / "one.sqlite"))
    assert "33 invocations: 25 completed, 1 of them exited non-zero, 8 failed" in said
    document = asked("import-transcript", str(transcript), str(tmp_path / "two.sqlite"))
    assert document["exited_nonzero"] == 1 and document["statuses"]["completed"] == 25


def test_a_search_finds_the_calls_that_exited_non_zero(store: Path, browser: Any) -> None:
    served = Served(store)
    try:
        session = served.every_match(
            f"/api/v1/sessions/{quote(CLAUDE_SESSION, safe='')}/search", status="exited-nonzero"
        )
        assert [m["invocation_id"].rpartition("/")[2] for m in session] == [FIND]
        assert session[0]["status"] == "completed"
        everywhere = served.every_match("/api/v1/search", status="exited-nonzero")
        counted = {r["session_id"]: r["exited_nonzero"]
                   for r in asked("sessions", str(store))["sessions"]}  # fmt: skip
        assert len(everywhere) == sum(counted.values()) > 1  # the OpenHands run's too
        assert {m["status"] for m in everywhere} == {"completed"}
        assert FIND in {m["invocation_id"].rpartition("/")[2] for m in everywhere}
        status, body, _ = served.get("/api/v1/search", {"status": "nonzero"})
        assert status == 400 and "exited-nonzero" in body["error"]
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        opened = Opened(page)
        page.goto(served.link(f"/sessions/{quote(CLAUDE_SESSION, safe='')}"))
        page.wait_for_selector("body[data-ready]", timeout=30_000)
        page.select_option("#search-status", "exited-nonzero")
        page.click("#search-run")
        page.wait_for_selector("#search-results[data-found='1']")
        assert "status=exited-nonzero" in page.url
        [row] = page.locator("#search-results tr.match td:first-child").all_inner_texts()
        assert FIND.startswith(row.rstrip("…")) or row in FIND
        assert opened.errors == []
        page.close()
    finally:
        assert served.stop()[0] == 0


def test_history_on_a_terminal_draws_a_non_zero_exit_in_the_colour_of_a_failure(
    store: Path,
) -> None:
    drawn = on_terminal("history", str(store), CLAUDE_SESSION, FIND, cwd=ROOT)
    [line] = [line for line in drawn.splitlines() if "exit 1" in line and "COMPLETED" in line]
    assert RED.search(line.split("COMPLETED")[-1]), repr(line)


# -- no made-up exit code or time ---------------------------------------------------------


def test_no_exit_code_is_shown_where_none_was_recorded(store: Path) -> None:
    calls = records(store, CLAUDE_SESSION)
    reads = [r for r in calls.values() if r["tool_name"] == "Read" and r["receipt"]]
    assert reads and all(r["receipt"]["exit_code"] is None for r in reads)
    assert calls[FIND]["receipt"]["exit_code"] == 1  # a stated one is shown
    history = run("history", str(store), CLAUDE_SESSION, READ)
    assert "exit" not in history
    versions = asked("history", str(store), CLAUDE_SESSION, READ)["versions"]
    assert versions[-1]["record"]["receipt"]["exit_code"] is None


@pytest.mark.parametrize("session", UNTIMED)
def test_a_session_that_records_no_time_shows_none(store: Path, session: str) -> None:
    replayed = asked("replay", str(store), session)
    assert replayed["times_recorded"] is False
    times = [r[k] for r in replayed["invocations"]
             for k in ("requested_at", "started_at", "completed_at")]  # fmt: skip
    assert times and all(t is None for t in times)
    first = replayed["invocations"][0]["invocation_id"]
    for said in (run("replay", str(store), session), run("history", str(store), session, first)):
        assert MADE_UP not in said and "00:00:0" not in said
        assert "records no time" in said
    stats = asked("stats", str(store), session)
    assert stats["times_recorded"] is False and "no time" in stats["note"]
    spreads = [t[k][p] for t in stats["tools"] for k in ("queued_seconds", "ran_seconds")
               for p in ("p50", "p95", "max")]  # fmt: skip
    assert spreads and all(s is None for s in spreads)
    assert "no durations" in run("stats", str(store), session)
    # A session whose times are recorded is shown as before.
    timed = asked("replay", str(store), PONY)
    assert timed["times_recorded"] is True and timed["invocations"][0]["requested_at"]


def spans_of(store: Path, session: str, *more: str) -> list[dict[str, Any]]:
    """The spans ``export`` writes of the session, with their attributes as a dict."""
    lines = run("export", str(store), session, *more).splitlines()
    spans = [span for line in lines for resource in json.loads(line)["resourceSpans"]
             for scope in resource["scopeSpans"] for span in scope["spans"]]  # fmt: skip
    for span in spans:
        span["attributes"] = {a["key"]: a["value"] for a in span.get("attributes", [])}
    return spans


@pytest.mark.parametrize("session", UNTIMED)
def test_an_export_of_a_session_that_records_no_time_makes_up_no_duration(
    store: Path, session: str
) -> None:
    for more in ((), ("--with-content",)):
        spans = spans_of(store, session, *more)
        calls = [s for s in spans if s["name"].startswith("execute_tool ")]
        assert calls and len(spans) == len(calls) + 1
        for span in spans:
            assert span["attributes"]["correx.times_recorded"] == {"boolValue": False}
        assert all(s["startTimeUnixNano"] == s["endTimeUnixNano"] for s in calls)
        # Neither records when it began: at 0, OpenTelemetry's unknown, never a made-up time.
        assert {s["startTimeUnixNano"] for s in spans} == {"0"}
    timed = spans_of(store, PONY)
    assert all("correx.times_recorded" not in s["attributes"] for s in timed)
    assert any(s["startTimeUnixNano"] != s["endTimeUnixNano"] for s in timed)


def test_an_export_carries_a_stated_non_zero_exit_code(store: Path) -> None:
    for more in ((), ("--with-content",)):
        spans = {s["attributes"]["gen_ai.tool.call.id"]["stringValue"].rpartition("/")[2]: s
                 for s in spans_of(store, CLAUDE_SESSION, *more)
                 if s["name"].startswith("execute_tool ")}  # fmt: skip
        assert spans[FIND]["attributes"]["process.exit.code"] == {"intValue": "1"}
        coded = [i for i, s in spans.items() if "process.exit.code" in s["attributes"]]
        assert coded == [FIND]  # no code where none was recorded, nor a 0
        # It completed, and said it went wrong: an error, named as one.
        assert spans[FIND]["attributes"]["error.type"] == {"stringValue": "tool_exited_nonzero"}
        assert spans[FIND]["status"] == {"code": 2, "message": "exit 1"}


# -- an edit that did nothing; a value cut ------------------------------------------------


def test_history_says_an_edit_did_nothing_and_what_an_import_cut(store: Path) -> None:
    refused = run("history", str(store), PONY, NO_REPLACEMENT)
    assert "edit not applied: ERROR: No replacement was performed, old_str `" in refused
    assert "edit not applied" not in run("history", str(store), PONY, REPLACED)
    cut = run("history", str(store), CLAUDE_SESSION, LS)
    [note] = re.findall(
        r"cut to fit the store: output: ([0-9,]+) bytes, sha256:([0-9a-f]{64})", cut
    )
    metadata = asked("history", str(store), CLAUDE_SESSION, LS)["versions"][-1]["record"]
    assert metadata["receipt"]["metadata"]["cut"] == f"output: {note[0]} bytes, sha256:{note[1]}"


# -- the report, in Chromium --------------------------------------------------------------


def report(store: Path, session: str, browser: Any, tmp: Path) -> Opened:
    out = tmp / "page.html"
    run("report", str(store), session, "-o", str(out))
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    opened = Opened(page)
    page.goto(out.as_uri())
    page.wait_for_selector("body[data-ready]", timeout=30_000)
    return opened


def test_the_report_shows_only_what_each_session_recorded(
    store: Path, browser: Any, tmp_path: Path
) -> None:
    opened = report(store, CLAUDE_SESSION, browser, tmp_path)
    page = opened.page
    assert opened.counts("final-")["exited_nonzero"] == 1
    assert opened.counts()["exited_nonzero"] == 1  # at the last event
    [bar] = page.query_selector_all("#timeline rect.bar.exited")
    assert "exited non-zero" in page.inner_text("#timeline-legend")
    bar.dispatch_event("click")
    assert page.get_attribute("#invocation", "data-invocation").endswith(FIND)
    code = page.wait_for_selector("#invocation .receipt-exit.nonzero")
    assert code.text_content() == "exit 1" and _colour(code) == FAILED_COLOUR
    assert "exited non-zero" in page.inner_text("#failures")
    _bar(page, _position(page, LS))
    assert re.fullmatch(
        r"Cut to fit the store: output: [0-9,]+ bytes, sha256:[0-9a-f]{64} \(.*\)",
        page.inner_text("[data-testid=cut-note]"),
    )
    read = _position(page, READ)
    _bar(page, read)
    shown = page.inner_text("#invocation").lower()  # headings are drawn in capitals
    assert "exit 0" not in shown and "exit code not recorded" in shown
    assert opened.errors == []
    page.close()
    opened = report(store, PONY, browser, tmp_path)
    page = opened.page
    _bar(page, _position(page, NO_REPLACEMENT))
    words = page.wait_for_selector("[data-testid=edit-not-applied]")
    assert "No replacement was performed" in words.inner_text()
    assert page.query_selector("#invocation [data-testid=edit-diff]") is None
    assert page.query_selector("#invocation .diff-add") is None
    _bar(page, _position(page, REPLACED))
    assert page.query_selector("#invocation [data-testid=edit-diff] .diff-add") is not None
    page.close()
    for session in UNTIMED:
        opened = report(store, session, browser, tmp_path)
        page = opened.page
        assert page.get_attribute("#timeline", "data-axis") == "sequence"
        _bar(page, 0)
        text = page.inner_text("body")
        assert MADE_UP not in text and " UTC" not in text and "records no time" in text
        assert opened.errors == []
        page.close()


def _bar(page: Any, position: int) -> None:
    """Open the call at ``position`` as a click on its bar does."""
    page.dispatch_event(f"#timeline rect.bar[data-index='{position}']", "click")


FAILED_COLOUR = "rgb(209, 73, 91)"
"""The pages' colour of a failure (``--failed`` in report.css)."""


def _colour(element: Any) -> str:
    colour: str = element.evaluate("e => getComputedStyle(e).color")
    return colour


def _position(page: Any, invocation: str) -> int:
    """The call's position in the report's columns, by its id."""
    ids: list[str] = page.evaluate(
        "JSON.parse(document.getElementById('report-data').textContent).invocations.ids"
    )
    return next(k for k, i in enumerate(ids) if i.endswith("/" + invocation))
