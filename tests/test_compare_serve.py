"""Two sessions compared by the debugger: ``GET /api/v1/compare`` and the compare view in
Chromium (the first divergence marked, every call a link to its history, deep links, what
a run wrote shown as text and masked; two agents' runs by meaning, with their outcomes and
final changes)."""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .browsing import Opened, module_browser
from .commands import correx
from .compare_runs import Call, claude_run
from .serving import Served
from .test_compare_command import RUN_A, RUN_B
from .test_compare_real_runs import MINI, OPENHANDS_LOG

playwright = pytest.importorskip("playwright.sync_api")
browser = module_browser()

HOSTILE = '<img src=x onerror="document.body.dataset.owned=1">'
ROW = "[data-testid=compare-row]"
TOKEN = "ghp_" + "a1B2c3D4e5F6g7H8i9J0k1L2m3N4o5P6q7R8"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("compare-serve")
    # Run b also echoes a hostile string and a token at its end: text, and masked.
    b_calls = [*RUN_B, Call("Bash", {"command": f"echo {HOSTILE} {TOKEN}"})]
    # Run c parts from both at its first call, which holds the token: the tree masks it.
    c_calls = [Call("Bash", {"command": f"echo {TOKEN}"}), *RUN_A[1:]]
    for name, cwd, calls in (
        ("run-a", "/w/a", RUN_A), ("run-b", "/w/b", b_calls), ("run-c", "/w/c", c_calls)
    ):  # fmt: skip
        path = claude_run(folder / f"{name}.jsonl", name, cwd, calls)
        correx("import-transcript", str(path), str(folder / "runs.sqlite"), check=True)
    return folder / "runs.sqlite"


@pytest.fixture(scope="module")
def served(store: Path) -> Iterator[Served]:
    server = Served(store)
    yield server
    assert server.stop()[0] == 0


def test_the_api_answers_what_the_command_prints_masked_and_with_refs(served: Served) -> None:
    document = served.answer("/api/v1/compare", a="run-a", b="run-b")
    divergence = document["first_divergence"]
    assert (divergence["a"]["position"], divergence["b"]["position"]) == (2, 2)
    assert document["rows_by_kind"] == {"same": 3, "changed": 0, "only_a": 1, "only_b": 2}
    assert document["a"]["ref"] and document["b"]["ref"]
    last = document["rows"][-1]["b"]
    assert TOKEN not in str(document) and "ghp_" not in last["arguments"]["command"]
    assert last["ref"]
    history = served.answer(
        f"/api/v1/sessions/{document['b']['ref']}/invocations/"
        f"{urllib.parse.quote(last['ref'], safe='')}/history"
    )
    assert history["invocation_id"].endswith("_0004")
    for params, words in (
        ({"a": "run-a"}, "b is required"),
        ({"a": "run-a", "b": "nope"}, "no session 'nope'"),
        ({"a": "run-a", "b": "run-b", "limit": "0"}, "limit=0 is not between"),
    ):
        status, body, _ = served.get("/api/v1/compare", params)
        assert status in {400, 404} and words in body["error"], body


def test_the_api_answers_the_tree_of_many_runs_as_the_command_prints_it_masked(
    served: Served, store: Path
) -> None:
    document = served.answer("/api/v1/compare", sessions="run-a,run-b", match="run-c*")
    printed = json.loads(
        correx("compare", str(store), "run-a", "run-b", "run-c", "--json", check=True).stdout
    )  # fmt: skip
    assert [run["session_id"] for run in document["runs"]] == ["run-a", "run-b", "run-c"]
    assert all(run["ref"] for run in document["runs"])
    assert TOKEN in str(printed) and TOKEN not in str(document)
    shared, parted = document["tree"]["children"]
    assert (shared["runs"], shared["shared"], parted["sessions"]) == (2, 2, ["run-c"])
    assert parted["call"]["arguments"]["command"].startswith("echo ")
    assert [{k: v for k, v in run.items() if k != "ref"} for run in document["runs"]] == printed[
        "runs"
    ]
    for params, words in (
        ({"sessions": "run-a"}, "2 to 1,000 different sessions; 1 named"),
        ({"sessions": "run-a,run-a"}, "1 named"),
        ({"match": "nope-*"}, "no session matches 'nope-*'"),
        ({"sessions": "run-a,nope"}, "no session 'nope'"),
    ):
        status, body, _ = served.get("/api/v1/compare", params)
        assert status in {400, 404} and words in body["error"], body


@pytest.fixture
def opened(browser: Any) -> Iterator[list[Opened]]:
    pages: list[Opened] = []
    yield pages
    for page in pages:
        assert page.errors == []
        page.page.close()


def open_compare(browser: Any, served: Served, query: str, pages: list[Opened]) -> Opened:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    found = Opened(page)
    pages.append(found)
    page.goto(served.link(f"/compare?{query}"))
    page.wait_for_selector("body[data-ready]", timeout=30_000)
    assert all(url.startswith((served.base, "data:")) for url in found.requests)
    return found


def test_the_compare_view_marks_the_divergence_and_links_every_call(
    browser: Any, served: Served, opened: list[Opened]
) -> None:
    page = open_compare(browser, served, "a=run-a&b=run-b", opened).page
    marked = page.wait_for_selector("[data-testid=divergence-row]")
    assert marked.get_attribute("data-row") == "2"
    assert page.inner_text("[data-testid=compare-row]") == "2"  # it opens at the divergence
    said = page.text_content("[data-testid=divergence]") or ""
    assert "First divergence after 2 matched calls" in said
    assert "row=2" in page.url and "token" not in page.url
    links = page.query_selector_all("#compare-table td.call a.ref")
    assert len(links) == 3 * 2 + 1 + 2
    assert all("/sessions/" in a.get_attribute("href") and "invocation=" in a.get_attribute("href")
               for a in links)  # fmt: skip
    # What the run wrote is text, masked: no element made of it, no token shown.
    text = page.inner_text("#compare-table")
    assert "<img src=x" in text and TOKEN not in text
    assert page.evaluate("document.body.dataset.owned") is None
    assert page.query_selector("#compare-table img") is None
    # Scrubbing both together moves the aligned point and the address.
    page.click("#compare-on")
    page.wait_for_function(
        "document.querySelector('[data-testid=compare-row]').textContent === '3'"
    )
    assert "row=3" in page.url
    assert page.query_selector("#compare-at-a a[data-at]") is not None
    assert page.query_selector("#compare-at-b a[data-at]") is not None
    # A call opens its history in its own session's page.
    links[-1].click()
    page.wait_for_selector("[data-testid=history] #versions tr.version", timeout=30_000)
    assert page.get_attribute("[data-testid=history]", "data-invocation").endswith("_0004")


def test_a_deep_link_opens_the_compare_view_at_its_row(
    browser: Any, served: Served, opened: list[Opened]
) -> None:
    page = open_compare(browser, served, "a=run-a&b=run-b&row=4", opened).page
    page.wait_for_function(
        "document.querySelector('[data-testid=compare-row]').textContent === '4'"
    )
    assert page.query_selector("#compare-table tr.selected").get_attribute("data-row") == "4"
    missing = open_compare(browser, served, "a=run-a&b=nope", opened)
    assert "no session 'nope'" in missing.page.inner_text("#error")
    # The browser logs the answer's 404 itself: that one is expected, and nothing else.
    assert [e for e in missing.errors if "404" not in e] == []
    missing.errors.clear()


@pytest.fixture(scope="module")
def agents(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    """A store of two agents' runs of one SWE-bench task (OpenHands, mini-swe-agent)."""
    store = tmp_path_factory.mktemp("compare-agents") / "runs.sqlite"
    for path in (OPENHANDS_LOG, MINI):
        correx("import-transcript", str(path), str(store), check=True)
    server = Served(store)
    yield server
    assert server.stop()[0] == 0


def test_the_compare_view_shows_two_agents_by_meaning_their_outcomes_and_final_changes(
    browser: Any, agents: Served, opened: list[Opened]
) -> None:
    query = "a=litellm&b=django__django-11099"
    page = open_compare(browser, agents, query, opened).page
    for side in ("a", "b"):  # how each run ended, from what its harness wrote beside it
        said = page.inner_text(f"[data-testid=outcome-{side}]")
        assert said.startswith("resolved") and "task django__django-11099" in said
        assert page.query_selector(f"[data-testid=outcome-{side}] .verdict.resolved")
    # The read both made of the file they fixed, spelled by two agents: one row, the same.
    rows = page.query_selector_all("#compare-table tr.compare.same")
    read = [row for row in rows if row.inner_text().startswith("3\tread django/contrib")]
    assert read and "spelled otherwise" in read[0].inner_text()
    # What each left of the file, side by side: the same change.
    change = page.wait_for_selector(
        "#compare-files .change[data-path='django/contrib/auth/validators.py']"
    )
    assert change.get_attribute("data-same") == "true"
    for side in ("a", "b"):
        shown = change.query_selector(f"pre[data-side={side}]").inner_text()
        assert "+    regex = r'\\A[\\w.@+-]+\\Z'" in shown
    assert "its final patch" in change.inner_text() and "its edits" in change.inner_text()
