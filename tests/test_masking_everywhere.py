"""The same masking in every view: no planted secret in any answer, page or document.

One real Claude Code transcript with a secret of each kind planted in added
``Write``, ``Edit`` and ``Bash`` calls (`planted`) is served by a real
``correx-tools serve`` and written by ``correx-tools report`` and ``correx-tools
export --with-content``; every API answer (sessions, state, history and view of
every call, diff, stats, scrubber, timeline, seek, refused, family, the
session's search and the search of every session, the stream), the report's
file and the exported spans are read whole, and the pages are opened in
Chromium: none shows a planted secret, and the text around each stays.
"""

from __future__ import annotations

import json
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from .browsing import Opened, module_browser
from .commands import correx
from .planted import KEPT, LEAKS, SESSION, leaked, planted_transcript
from .serving import ROOT, Served

browser = module_browser()
S = quote(SESSION, safe="")


@pytest.fixture(scope="module")
def transcript(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return planted_transcript(tmp_path_factory.mktemp("planted"))


@pytest.fixture(scope="module")
def report(transcript: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    page = tmp_path_factory.mktemp("report") / "report.html"
    correx("report", str(transcript), SESSION, "-o", str(page), "--no-cache", check=True, cwd=ROOT)
    return page


@pytest.fixture(scope="module")
def served(transcript: Path) -> Iterator[Served]:
    server = Served(transcript, "--no-cache")
    yield server
    server.stop()


def every_answer(served: Served) -> dict[str, Any]:
    """Every question the API answers about the session, by its address."""
    base = f"/api/v1/sessions/{S}"
    last = served.answer(base)["last_sequence"]
    answers: dict[str, Any] = {
        "/api/v1/sessions": served.answer("/api/v1/sessions"),
        base: served.answer(base),
        f"{base}/state": served.answer(f"{base}/state", limit=1000),
        f"{base}/diff": served.answer(f"{base}/diff", a=0, b=last, limit=1000),
        f"{base}/stats": served.answer(f"{base}/stats"),
        f"{base}/timeline": served.answer(f"{base}/timeline"),
        f"{base}/refused": served.answer(f"{base}/refused"),
        f"{base}/family": served.answer(f"{base}/family"),
        f"{base}/seek": served.answer(f"{base}/seek", **{"from": 0, "direction": "next"}),
        f"{base}/search": served.answer(f"{base}/search", limit=1000),
        "/api/v1/search": served.answer("/api/v1/search", q="REDACTED", limit=200),
    }
    for at in range(last - 30, last + 1):
        answers[f"{base}/scrub?at={at}"] = served.answer(f"{base}/scrub", at=at, since=at - 3)
    for match in answers[f"{base}/search"]["matches"]:
        call = f"{base}/invocations/{quote(match['ref'], safe='')}"
        answers[f"{call}/history"] = served.answer(f"{call}/history")
        answers[f"{call}/view"] = served.answer(f"{call}/view")
    request = urllib.request.Request(
        served.base + f"{base}/stream", headers={"Authorization": f"Bearer {served.token}"}
    )
    with urllib.request.urlopen(request, timeout=10) as stream:
        answers[f"{base}/stream"] = stream.readline().decode() + stream.readline().decode()
    return answers


def test_no_answer_of_the_api_shows_a_planted_secret(served: Served) -> None:
    answers = every_answer(served)
    assert len(answers) > 45 + 30
    shown = {where: leaked(json.dumps(answer)) for where, answer in answers.items()}
    assert {where: kinds for where, kinds in shown.items() if kinds} == {}
    everything = json.dumps(answers)
    assert [kept for kept in KEPT if kept not in everything] == []


def test_a_search_for_a_secret_finds_nothing(served: Served) -> None:
    """A search looks in what the page shows: a secret's text is an oracle for nothing."""
    for kind, leak in LEAKS.items():
        query = leak.splitlines()[0][-14:]
        for path in (f"/api/v1/sessions/{S}/search", "/api/v1/search"):
            assert served.answer(path, q=query)["matches"] == [], (kind, path)


def test_the_report_shows_no_planted_secret(report: Path) -> None:
    text = report.read_text(encoding="utf-8")
    assert leaked(text) == []
    assert "MYSQL_PWD=" in text and "/w/keys/id_rsa" in text


def test_the_exported_content_shows_no_planted_secret(transcript: Path, tmp_path: Path) -> None:
    out = tmp_path / "spans.jsonl"
    correx(
        "export",
        str(transcript),
        SESSION,
        "--with-content",
        "-o",
        str(out),
        "--no-cache",
        check=True,
        cwd=ROOT,
    )
    text = out.read_text(encoding="utf-8")
    assert leaked(text) == [] and "MYSQL_PWD=" in text


def test_the_pages_in_chromium_show_no_planted_secret(
    served: Served, report: Path, browser: Any
) -> None:
    found = served.answer(f"/api/v1/sessions/{S}/search", q="planted", limit=100)["matches"]
    assert len(found) == 12
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    opened = Opened(page)
    # the server's page: the keys written, the .env edited, the AWS pair, the cut token
    for match in [found[n] for n in (0, 1, 2, 3, 8, 11)]:
        invocation = quote(match["ref"], safe="")
        page.goto(served.link(f"/sessions/{S}?invocation={invocation}"))
        page.wait_for_selector("body[data-ready]", timeout=30_000)
        page.wait_for_selector("[data-testid=edit-diff], [data-testid=shell-output]")
        assert leaked(page.inner_text("body")) == [], match["invocation_id"]
    assert opened.errors == []
    page.goto(report.as_uri())  # the report's page: every planted call
    page.wait_for_selector("body[data-ready]", timeout=30_000)
    last, opened_calls = served.answer(f"/api/v1/sessions/{S}")["last_sequence"], set()
    for at in range(last, last - 40, -8):  # the planted calls' events are the last ones
        opened.scrub(at)
        for link in page.query_selector_all("#recent a"):
            link.click()
            opened_calls.add(page.get_attribute("#invocation", "data-invocation"))
            assert leaked(page.inner_text("body")) == [], opened_calls
    assert len({c for c in opened_calls if c and "planted" in c}) == 12
    assert opened.errors == []
    page.close()
