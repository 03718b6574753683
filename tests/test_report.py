"""``correx-tools report`` in a real browser: the page the command writes, driven in Chromium.

The command runs (in this process) against real SQLite files (the demo's, with its
real Claude Code transcript); the page is opened from ``file://`` in headless
Chromium through Playwright and checked against what the library answers for
the same session.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from correx_tools import (
    DefaultToolRepository,
    EventReplayer,
    JsonlEventLog,
    PostgresEventStore,
    SessionId,
    SQLiteEventStore,
)
from correx_tools.shell.report.page import report_data

from .browsing import Opened, module_browser
from .commands import Ran, correx
from .serving import demo_store
from .strategies import SECRET, completed, failed, planted_secrets, requested, started, stored

playwright = pytest.importorskip("playwright.sync_api")

REAL = "real-claude-code-subagent"


def run(*args: str, cwd: Path, ok: bool = True) -> Ran:
    result = correx(*args, cwd=cwd)
    assert "Traceback" not in result.stderr
    if ok:
        assert result.returncode == 0, result.stderr
    return result


browser = module_browser()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A small demo store: two generated sessions and the real transcript."""
    return demo_store(tmp_path_factory.mktemp("demo"), 2, 300)


@pytest.fixture
def open_report(browser: Any) -> Iterator[Any]:
    pages: list[Opened] = []

    def opener(path: Path) -> Opened:
        opened = Opened(browser.new_page(viewport={"width": 1400, "height": 1000}))
        opened.page.goto(path.as_uri())
        opened.page.wait_for_selector("body[data-ready]", timeout=60_000)
        pages.append(opened)
        return opened

    yield opener
    for opened in pages:
        assert opened.errors == []
        assert all(url.startswith("file://") for url in opened.requests), opened.requests
        opened.page.close()


def report(store: Path, session: str, *extra: str) -> Path:
    out = store.parent / f"{re.sub(r'[^a-z0-9]', '_', session)}{len(extra)}.html"
    result = run("report", str(store), session, "-o", str(out), "--json", *extra, cwd=store.parent)
    document = json.loads(result.stdout)
    assert document["path"] == str(out) and document["bytes"] == out.stat().st_size
    return out


def repository(store: Path) -> DefaultToolRepository:
    return DefaultToolRepository(
        EventReplayer(SQLiteEventStore(store, read_only=True)), strict=False
    )


def test_the_real_transcripts_page_shows_every_call_and_its_history(
    demo: Path, open_report: Any
) -> None:
    opened = open_report(report(demo, REAL))
    page = opened.page
    state = repository(demo).get(SessionId(REAL)).unwrap()
    assert page.title() == f"correx-tools report: {REAL}"
    assert page.get_attribute("#timeline", "data-mode") == "bars"
    assert len(page.query_selector_all("#timeline rect.bar")) == len(state) == 33
    assert opened.counts("final-") == {
        **{
            status: sum(r.status.value == status for r in state.records())
            for status in ("requested", "started", "completed", "failed", "rejected")
        },
        "exited_nonzero": sum(bool(r.receipt and r.receipt.exit_code) for r in state.records()),
    }
    # Hovering a bar shows its id, tool, status and durations.
    first = state.invocations[0]
    title = page.text_content("#timeline rect.bar[data-index='0'] title")
    assert first.invocation_id in title and first.tool_name in title and "ran" in title
    # Clicking a failed invocation shows each version of its record and its arguments.
    page.click("tr.failure")
    shown = page.get_attribute("#invocation", "data-invocation")
    record = state.get(shown).unwrap()
    assert record.status.value == "failed"
    history = repository(demo).history(SessionId(REAL), record.invocation_id).unwrap()
    versions = page.query_selector_all("#versions tr.version")
    assert [int(v.query_selector("td").inner_text()) for v in versions] == [s for s, _ in history]
    assert record.reason is not None and record.reason in page.inner_text("#invocation")
    arguments = dict(record.request.arguments)
    assert json.dumps(arguments["file_path"]) in page.inner_text("#invocation pre")


def test_the_scrubber_shows_what_the_library_gives_at_each_sequence(
    demo: Path, open_report: Any
) -> None:
    session = SessionId("demo-run01-session-2")
    opened = open_report(report(demo, session, "--lenient"))
    page, asked = opened.page, repository(demo)
    last = asked.last_sequence(session)
    previous = last
    for sequence in (0, 1, 2, 17, 250, last // 2, last - 1, last):
        opened.scrub(sequence)
        summary = asked.summary(session, at=sequence).unwrap()
        expected = {status.value: count for status, count in summary.counts.items()}
        assert opened.counts() == {
            **expected,
            "exited_nonzero": summary.exited_nonzero,
            "refused": summary.refused,
        }, sequence
        assert int(page.get_attribute("#in-flight", "data-count")) == len(summary.in_flight)
        a, b = sorted((previous, sequence))
        changed = asked.diff(session, a, b).unwrap()
        assert int(page.get_attribute("#diff", "data-count")) == len(changed)
        assert page.input_value("#seq") == str(sequence)
        previous = sequence
    # The keyboard moves the slider one event at a time.
    page.focus("#scrubber")
    page.keyboard.press("ArrowLeft")
    assert page.input_value("#seq") == str(last - 1)
    # Refused events are listed with why (lenient mode).
    refused = asked.refused(session)
    assert len(page.query_selector_all("#refused tr")) == len(refused) + 1


def test_a_large_session_is_grouped_into_buckets_that_zoom_into_bars(
    tmp_path: Path, open_report: Any
) -> None:
    events = []
    for number in range(4_000):
        name = f"call-{number}"
        ending = failed(name) if number % 10 == 7 else completed(name)
        events += [requested(name, tool=("read_file", "shell")[number % 2]), started(name), ending]
    path = tmp_path / "large.sqlite"
    with SQLiteEventStore(path) as store:
        store.import_events(stored(events)).unwrap()
    opened = open_report(report(path, "session-1"))
    page = opened.page
    assert page.get_attribute("#timeline", "data-mode") == "buckets"
    buckets = page.query_selector_all("#timeline rect.bucket")
    assert sum(int(b.get_attribute("data-count")) for b in buckets) == 4_000
    # A click on a bucket zooms into its time range, where each call is a bar again.
    buckets[len(buckets) // 2].click()
    assert page.get_attribute("#timeline", "data-mode") == "bars"
    bars = page.query_selector_all("#timeline rect.bar")
    assert 0 < len(bars) == int(page.get_attribute("#timeline", "data-visible")) < 4_000
    page.click("#reset-zoom")
    assert page.get_attribute("#timeline", "data-visible") == "4000"


def test_planted_secrets_never_reach_the_file(tmp_path: Path, open_report: Any) -> None:
    events = stored(
        [
            *planted_secrets(),
            requested("<img src=x onerror=alert(1)>", tool="shell", api_key="plain words"),
        ]
    )
    path = tmp_path / "secrets.sqlite"
    with SQLiteEventStore(path) as store:
        store.import_events(events).unwrap()
    out = report(path, "session-1", "--redact", r"ACME-\d+")
    text = out.read_text(encoding="utf-8")
    for planted in (SECRET, "hunter2hunter2", "ACME-123456", "plain words"):
        assert planted not in text
    opened = open_report(out)
    page = opened.page
    page.click("tr.failure")
    assert "[REDACTED]" in page.inner_text("#invocation")
    # Markup from the session is shown as text, never run.
    dialogs: list[str] = []
    page.on("dialog", lambda dialog: dialogs.append(dialog.message))
    assert "<img src=x onerror=alert(1)>" in page.inner_text("#in-flight")
    assert dialogs == [] and page.query_selector("img") is None


def test_a_strict_report_of_a_session_with_refusals_is_a_one_line_error(demo: Path) -> None:
    out = demo.parent / "strict.html"
    result = run(
        "report", str(demo), "demo-run01-session-2", "-o", str(out), cwd=demo.parent, ok=False
    )
    assert result.returncode == 1 and not out.exists()
    assert "--lenient" in result.stderr and len(result.stderr.strip().splitlines()) == 1


def test_a_bad_redact_pattern_names_it(demo: Path) -> None:
    result = run("report", str(demo), REAL, "--redact", "(oops", cwd=demo.parent, ok=False)
    assert result.returncode == 1
    assert result.stderr.startswith("correx-tools report: error: --redact '(oops'")


def test_the_default_file_is_named_after_the_session(demo: Path) -> None:
    run("report", str(demo), REAL, cwd=demo.parent)
    assert (demo.parent / f"report-{REAL}.html").stat().st_size > 10_000


def test_every_store_kind_gives_the_same_page(
    demo: Path, tmp_path: Path, postgres_dsn: str, postgres_schema: str
) -> None:
    source = SQLiteEventStore(demo, read_only=True)
    events = list(source.read(SessionId("demo-run01-session-2")))
    jsonl = JsonlEventLog(tmp_path / "copy.jsonl")
    jsonl.import_events(events).unwrap()
    postgres = PostgresEventStore(postgres_dsn, schema=postgres_schema)
    postgres.import_events(events).unwrap()
    pages = [
        report_data(
            DefaultToolRepository(EventReplayer(store), strict=False),
            SessionId("demo-run01-session-2"),
        ).unwrap()
        for store in (source, jsonl, postgres)
    ]
    postgres.close()
    assert pages[0] == pages[1] == pages[2]
    assert pages[0]["refused"]["total"] > 0


def test_a_page_that_cannot_be_written_is_one_line_and_leaves_nothing(demo: Path) -> None:
    missing = demo.parent / "no-such-directory" / "page.html"
    result = run("report", str(demo), REAL, "-o", str(missing), cwd=demo.parent, ok=False)
    assert result.returncode == 1
    assert result.stderr.startswith(f"correx-tools report: error: {missing}:")
    blocked = demo.parent / "a-directory.html"
    blocked.mkdir()
    result = run("report", str(demo), REAL, "-o", str(blocked), cwd=demo.parent, ok=False)
    assert result.returncode == 1 and "Traceback" not in result.stderr
    assert not list(demo.parent.glob(".*.partial"))


def test_the_default_file_name_is_redacted_too(tmp_path: Path) -> None:
    session = f"deploy {SECRET}"
    path = tmp_path / "s.sqlite"
    with SQLiteEventStore(path) as store:
        store.import_events(stored([requested("a")], session=session)).unwrap()
    run("report", str(path), session, cwd=tmp_path)
    (page,) = tmp_path.glob("report-*.html")
    assert SECRET not in page.name and "REDACTED" in page.name


def test_dash_writes_the_page_to_standard_output(demo: Path) -> None:
    written = report(demo, REAL)
    piped = correx("report", str(demo), REAL, "-o", "-", cwd=demo.parent, check=True)
    assert piped.stdout_bytes == written.read_bytes() and piped.stderr == ""
    assert not (demo.parent / "-").exists()
    # The page itself goes out: there is no file for --json to describe. (export's lines are
    # JSON already: with --json they go out as they are.)
    both = run("report", str(demo), REAL, "-o", "-", "--json", cwd=demo.parent, ok=False)
    assert both.returncode == 1 and "--json" in both.stderr and both.stdout == ""


@pytest.mark.parametrize("command", ["report", "export"])
def test_an_empty_output_name_is_refused(demo: Path, command: str) -> None:
    before = sorted(demo.parent.iterdir())
    result = run(command, str(demo), REAL, "-o", "", cwd=demo.parent, ok=False)
    assert result.returncode == 2
    assert "argument -o/--output: an empty name" in result.stderr
    assert sorted(demo.parent.iterdir()) == before


def test_a_start_recorded_before_its_request_is_a_negative_wait_as_stats_says(
    tmp_path: Path, open_report: Any
) -> None:
    # The lifecycle time-checks only an end against its request: a Started event stamped
    # 50 s before its Requested one (two writers' clocks) is accepted.
    path = tmp_path / "skew.sqlite"
    events = [requested("a"), started("a"), completed("a"), requested("b")]
    with SQLiteEventStore(path) as store:
        store.import_events(stored(events, session="skew", times=[100, 50, 160, 170])).unwrap()
    said = run("stats", str(path), "skew", "--wide", cwd=tmp_path).stdout
    assert "-50.0 s / -50.0 s / -50.0 s" in said and "1 min 50 s" in said
    page = open_report(report(path, "skew")).page
    title = page.text_content("#timeline rect.bar[data-index='0'] title")
    assert "queued -50.0 s · ran 1 min 50 s · total 1 min" in title
    in_flight = page.text_content("#timeline rect.bar[data-index='1'] title")
    none = "\u2013"  # an en dash: no such time
    assert f"queued {none} · ran {none} · total {none}" in in_flight
    page.click("#timeline rect.bar[data-index='0']")
    facts = page.inner_text("#invocation table")
    assert "-50.0 s" in facts and "1 min 50 s" in facts
    # The session's span is from its first event to its last, as sessions says it; the
    # call's bar reaches back to its start.
    assert "(1 min 10 s," in page.inner_text("#overview")
    bar = page.query_selector("#timeline rect.bar[data-index='0']")
    assert float(bar.get_attribute("x")) <= 151  # the left edge of the whole session
    # A session with no call at all has no time to start its axis from (not 1970).
    lone = tmp_path / "lone.sqlite"
    with SQLiteEventStore(lone) as store:
        store.import_events(stored([started("ghost")], session="lone")).unwrap()
    axis = open_report(report(lone, "lone", "--lenient")).page
    assert "1970" not in (axis.text_content("#timeline") or "")
