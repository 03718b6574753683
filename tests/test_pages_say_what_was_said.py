"""The report and the debugger's page agree with the command: a session's span is from its
first event to its last, as ``sessions`` counts it; the report has its turns, tokens and
cost; and an event that is no call's (a prompt, the assistant's words, tokens, the
description) is named as what it says, never "other". In Chromium, on the real Claude
Code transcript the demo imports with its conversation.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from datetime import datetime
from pathlib import Path
from typing import Any

import pytest

from correx_tools.shell.cli.output.readable import duration

from .browsing import Opened, module_browser
from .commands import correx
from .serving import Served, demo_store

playwright = pytest.importorskip("playwright.sync_api")

REAL = "real-claude-code-subagent"
browser = module_browser()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_store(tmp_path_factory.mktemp("said"), 1, 30)


@pytest.fixture(scope="module")
def report(demo: Path, browser: Any) -> Iterator[Opened]:
    path = demo.with_name("report.html")
    correx("report", str(demo), REAL, "-o", str(path), check=True)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    opened = Opened(page)
    page.goto(path.as_uri())
    page.wait_for_selector("body[data-ready]", timeout=30_000)
    yield opened
    assert opened.errors == []
    page.close()


def answer(*argv: str) -> Any:
    return json.loads(correx(*argv, "--json", check=True).stdout)


def test_the_reports_span_is_the_sessions(demo: Path, report: Opened) -> None:
    [row] = [s for s in answer("sessions", str(demo))["sessions"] if s["session_id"] == REAL]
    first, last = (datetime.fromisoformat(row[k]) for k in ("first_time", "last_time"))
    overview = report.page.inner_text("#overview")
    assert f"({duration(last - first)}, your time zone)" in overview
    assert "first event" in overview


def test_the_report_has_the_turns_tokens_and_cost_stats_gives(demo: Path, report: Opened) -> None:
    tokens = answer("stats", str(demo), REAL)["tokens"]
    said = report.page.inner_text("#tokens")
    assert f"{tokens['total']['total']:,} tokens" in said
    assert f"${tokens['total']['cost']['usd']:.4f}" in said
    turns = report.page.inner_text("#turns").splitlines()
    assert turns[0].split("\t") == ["turn", "prompt", "sequences", "calls", "tokens", "cost"]
    assert len(turns) == 1 + len(tokens["turns"])
    assert turns[1].startswith(f"{tokens['turns'][0]['turn']}\tVery thorough exploration")


def test_the_reports_events_say_what_each_is(report: Opened) -> None:
    report.scrub(5)
    kinds = [row.split("\t")[1] for row in report.page.inner_text("#recent").splitlines()[1:]]
    assert kinds == ["requested", "said", "tokens", "prompt", "described"]


def test_the_pages_events_say_what_each_is(demo: Path, browser: Any) -> None:
    server = Served(demo.name, cwd=demo.parent)
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        opened = Opened(page)
        page.goto(server.link(f"/sessions/{REAL}?at=5"))
        page.wait_for_selector("body[data-ready]", timeout=30_000)
        page.wait_for_function(
            "document.querySelector('#recent') && "
            "document.querySelector('#recent').innerText.includes('prompt')"
        )
        rows = page.inner_text("#recent").splitlines()[1:]
        kinds = {row.split("\t")[0]: row.split("\t")[1] for row in rows}
        assert kinds["1"] == "described" and kinds["2"] == "prompt"
        assert kinds["3"] == "tokens" and kinds["4"] == "said" and kinds["5"] == "requested"
        assert "other" not in kinds.values()
        # The tools at the end: a figure of the calls whose start is recorded, or none.
        page.goto(server.link(f"/sessions/{REAL}"))
        page.wait_for_selector("body[data-ready]", timeout=30_000)
        page.wait_for_selector("#tools[data-at='120']")
        tools = {r.split("\t")[0]: r.split("\t") for r in page.inner_text("#tools").splitlines()}
        assert tools["tool"][7:] == ["took p50 / p95 / max", "queued p50 / p95 / max",
                                     "ran p50 / p95 / max"]  # fmt: skip
        none = "\u2013"  # an en dash: no such time
        assert none not in tools["Read"][7] and tools["Read"][8] == f"{none} / {none} / {none}"
        assert opened.errors == []
        page.close()
    finally:
        assert server.stop()[0] == 0
