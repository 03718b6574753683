"""The debugger's page in Chromium: deep links, scrubbing, an invocation, diff, search, live.

A real ``correx-tools serve`` runs on loopback over the demo's SQLite store;
the page is driven in the distribution's Chromium through Playwright and what
it shows is held to what the library answers for the same question. Each page
must raise no script error and ask nothing of any other origin.

Set ``CORREX_TEST_SCREENSHOTS`` to a folder (``docs/images``) to keep the
screenshots the documentation shows.
"""

from __future__ import annotations

import os
import subprocess
import sys
import urllib.parse
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from correx_tools import (
    DefaultToolRepository,
    EventReplayer,
    SessionId,
    SQLiteEventStore,
    ToolInvocationStatus,
    short_invocation_id,
)

from .browsing import Opened, module_browser
from .serving import ROOT, Served, demo_store
from .strategies import completed, failed, requested, started, stored

playwright = pytest.importorskip("playwright.sync_api")

SESSION = "demo-run01-session-2"
browser = module_browser()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_store(tmp_path_factory.mktemp("serve-page"), 2, 150)


@pytest.fixture(scope="module")
def served(demo: Path) -> Iterator[Served]:
    server = Served(demo.name, "--lenient", cwd=demo.parent)
    yield server
    assert server.stop()[0] == 0


@pytest.fixture(scope="module")
def asked(demo: Path) -> DefaultToolRepository:
    return DefaultToolRepository(
        EventReplayer(SQLiteEventStore(demo, read_only=True)), strict=False
    )


@pytest.fixture
def open_page(browser: Any) -> Iterator[Callable[..., Opened]]:
    pages: list[tuple[Opened, str]] = []

    def opener(server: Served, path: str = "/", width: int = 1400) -> Opened:
        page = browser.new_page(viewport={"width": width, "height": 1000})
        opened = Opened(page)
        page.goto(server.link(path))
        page.wait_for_selector("body[data-ready]", timeout=30_000)
        pages.append((opened, server.base))
        return opened

    yield opener
    for opened, base in pages:
        assert opened.errors == []
        assert all(url.startswith((base, "data:")) for url in opened.requests), opened.requests
        opened.page.close()


def shot(opened: Opened, name: str) -> None:
    """Keep a screenshot for the documentation when asked to."""
    folder = os.environ.get("CORREX_TEST_SCREENSHOTS")
    if folder:
        opened.page.screenshot(path=str(Path(folder) / name), full_page=True)


def short(invocation: str) -> str:
    """The invocation's id as the command prints it."""
    return short_invocation_id(SESSION, invocation)


def at(opened: Opened) -> int:
    return int(opened.page.inner_text("[data-testid=sequence]"))


def scrubbed(opened: Opened, sequence: int) -> None:
    opened.page.wait_for_function(
        "k => document.querySelector('[data-testid=sequence]').textContent === String(k)",
        arg=sequence,
    )


def expected_counts(asked: DefaultToolRepository, sequence: int) -> dict[str, int]:
    summary = asked.summary(SessionId(SESSION), at=sequence).unwrap()
    return {s.value: summary.counts[s] for s in ToolInvocationStatus} | {
        "exited_nonzero": summary.exited_nonzero,
        "refused": summary.refused,
    }


def test_a_deep_link_opens_at_the_exact_state(
    served: Served, asked: DefaultToolRepository, open_page: Callable[..., Opened]
) -> None:
    invocation = f"{SESSION}/call-00077"
    quoted = urllib.parse.quote(invocation, safe="")
    opened = open_page(served, f"/sessions/{SESSION}?at=300&invocation={quoted}")
    page = opened.page
    scrubbed(opened, 300)
    assert opened.counts() == expected_counts(asked, 300)
    last = asked.last_sequence(SessionId(SESSION))
    assert page.inner_text("[data-testid=last-sequence]") == str(last)
    page.wait_for_selector("[data-testid=history] #versions tr.version")
    history = asked.history(SessionId(SESSION), invocation).unwrap()
    versions = page.query_selector_all("#versions tr.version td:first-child")
    assert [int(v.inner_text()) for v in versions] == [s for s, _ in history]
    assert page.get_attribute("[data-testid=history]", "data-invocation") == invocation
    assert "invocation=" in page.url and "at=300" in page.url and "token" not in page.url
    # The refused event about it is part of its story.
    assert "illegal transition" in page.inner_text("[data-testid=history]")
    flying = asked.summary(SessionId(SESSION), at=300).unwrap().in_flight
    assert int(page.get_attribute("#in-flight", "data-count")) == len(flying)
    page.wait_for_selector("#timeline rect.bar")
    shot(opened, "serve-session.png")
    listed = open_page(served)
    listed.page.wait_for_selector("#sessions[data-total='3']")
    assert listed.page.inner_text("#source") == "demo.sqlite"
    shot(listed, "serve-sessions.png")


def test_scrubbing_shows_the_library_state_and_back_goes_back(
    served: Served, asked: DefaultToolRepository, open_page: Callable[..., Opened]
) -> None:
    opened = open_page(served, f"/sessions/{SESSION}?at=10")
    page = opened.page
    scrubbed(opened, 10)
    previous = 10
    for sequence in (0, 1, 57, 233, 234, 400):
        page.fill("#seq", str(sequence))
        page.press("#seq", "Enter")
        scrubbed(opened, sequence)
        assert opened.counts() == expected_counts(asked, sequence)
        a, b = sorted((previous, sequence))
        changed = asked.diff(SessionId(SESSION), a, b).unwrap()
        page.wait_for_function(
            "n => document.querySelector('#diff').getAttribute('data-count') === String(n)",
            arg=len(changed),
        )
        previous = sequence
    page.focus("#scrubber")
    page.keyboard.press("ArrowLeft")
    scrubbed(opened, 399)
    page.go_back()
    scrubbed(opened, 400)
    page.go_back()
    scrubbed(opened, 234)
    page.go_forward()
    scrubbed(opened, 400)
    assert at(opened) == 400 and "at=400" in page.url


def test_a_bar_opens_its_invocations_history_and_a_version_moves_there(
    served: Served, asked: DefaultToolRepository, open_page: Callable[..., Opened]
) -> None:
    opened = open_page(served, f"/sessions/{SESSION}")
    page = opened.page
    page.wait_for_selector("#timeline rect.bar")
    assert page.get_attribute("#timeline", "data-mode") == "bars"
    assert len(page.query_selector_all("#timeline rect.bar")) == 150
    page.click("#timeline rect.bar.failed")
    page.wait_for_selector("#versions tr.version")
    shown = page.get_attribute("[data-testid=history]", "data-invocation")
    record = asked.get(SessionId(SESSION)).unwrap().get(shown).unwrap()
    assert record.status is ToolInvocationStatus.FAILED
    assert record.reason is not None and record.reason in page.inner_text("[data-testid=history]")
    assert urllib.parse.quote(shown, safe="") in page.url
    first = page.query_selector("#versions tr.version a")
    sequence = int(first.inner_text())
    first.click()
    scrubbed(opened, sequence)
    shot(opened, "serve-invocation.png")


def test_a_deep_link_holds_the_diff_and_the_zoom(
    served: Served, asked: DefaultToolRepository, open_page: Callable[..., Opened]
) -> None:
    whole = served.answer(f"/api/v1/sessions/{SESSION}/timeline")
    low, high = whole["end"] // 4, whole["end"] // 2
    window = served.answer(f"/api/v1/sessions/{SESSION}/timeline", **{"from": low, "to": high})
    opened = open_page(served, f"/sessions/{SESSION}?at=50&a=5&b=90&from={low}&to={high}")
    page = opened.page
    page.wait_for_selector(f"#timeline[data-visible='{window['visible']}']")
    assert 0 < window["visible"] < whole["visible"]
    changes = asked.diff(SessionId(SESSION), 5, 90).unwrap()
    page.wait_for_selector(f"#diff-result[data-total='{len(changes)}']")
    page.click("#reset-zoom")
    page.wait_for_selector(f"#timeline[data-visible='{whole['visible']}']")
    page.go_back()
    page.wait_for_selector(f"#timeline[data-visible='{window['visible']}']")
    scrubbed(opened, 50)


def test_diff_search_and_the_next_failure(
    served: Served, asked: DefaultToolRepository, open_page: Callable[..., Opened]
) -> None:
    opened = open_page(served, f"/sessions/{SESSION}")
    page = opened.page
    page.fill("#diff-a", "20")
    page.fill("#diff-b", "380")
    page.click("#diff-run")
    changes = asked.diff(SessionId(SESSION), 20, 380).unwrap()
    page.wait_for_selector(f"#diff-result[data-total='{len(changes)}']")
    assert len(page.query_selector_all("#diff-result tr.change")) == min(100, len(changes))
    assert "a=20" in page.url and "b=380" in page.url
    page.fill("#search-text", "permission denied")
    page.click("#search-run")
    state = asked.get(SessionId(SESSION)).unwrap()
    wanted = [r.invocation_id for r in state.records() if "permission denied" in (r.reason or "")]
    page.wait_for_selector(f"#search-results[data-found='{len(wanted)}']")
    rows = page.query_selector_all("#search-results tr.match td:first-child")
    assert [row.inner_text() for row in rows] == [short(i) for i in wanted] and wanted
    page.fill("#seq", "0")
    page.press("#seq", "Enter")
    scrubbed(opened, 0)
    page.click("#next-failure")
    ends = sorted(
        seq for _, r in [(0, r) for r in state.records()] if r.status.is_terminal
        for seq, v in asked.history(SessionId(SESSION), r.invocation_id).unwrap()
        if v.status in (ToolInvocationStatus.FAILED, ToolInvocationStatus.REJECTED)
    )  # fmt: skip
    scrubbed(opened, ends[0])
    page.wait_for_selector("#versions tr.version")
    page.click("#next-failure")
    scrubbed(opened, ends[1])


def test_follow_keeps_up_with_a_session_recorded_live(
    demo: Path, tmp_path: Path, open_page: Callable[..., Opened]
) -> None:
    copy = tmp_path / "live.sqlite"
    copy.write_bytes(demo.read_bytes())
    server = Served(copy, "--lenient")
    try:
        opened = open_page(server, f"/sessions/{SESSION}?at=5")
        page = opened.page
        scrubbed(opened, 5)
        last = int(page.inner_text("[data-testid=last-sequence]"))
        page.check("#follow")
        scrubbed(opened, last)
        recorder = subprocess.Popen(
            [sys.executable, str(ROOT / "tests" / "serve_recorder.py"), str(copy), SESSION, "2"],
            stdout=subprocess.PIPE, text=True, env={"PYTHONPATH": str(ROOT)},
        )  # fmt: skip
        out, _ = recorder.communicate(timeout=60)
        final = int(out.split()[-1])
        # Pushed live: the page is never reloaded (how soon is not timed on a shared machine).
        page.wait_for_function(
            "k => document.querySelector('[data-testid=last-sequence]').textContent === String(k)",
            arg=final, timeout=20_000,
        )  # fmt: skip
        scrubbed(opened, final)
        assert page.is_visible("#live")
    finally:
        assert server.stop()[0] == 0


HOSTILE = [
    "</script><script>alert(1)</script>",
    "<img src=x onerror=alert(2)>",
    "javascript:alert(3)",
    "evil\u202etxt.exe",
]


def test_hostile_names_ids_and_outputs_render_as_text(
    tmp_path: Path, open_page: Callable[..., Opened]
) -> None:
    events = []
    for number, text in enumerate(HOSTILE):
        call = f"{text}#{number}"
        events += [requested(call, tool=text, note=text), started(call)]
        events.append(completed(call, output=text) if number % 2 else failed(call, reason=text))
    path = tmp_path / "hostile.sqlite"
    with SQLiteEventStore(path) as store:
        store.import_events(stored(events, session=HOSTILE[1])).unwrap()
    server = Served(path, "--no-redact")
    try:
        opened = open_page(server, f"/sessions/{urllib.parse.quote(HOSTILE[1], safe='')}")
        page = opened.page
        dialogs: list[str] = []
        page.on("dialog", lambda dialog: (dialogs.append(dialog.message), dialog.dismiss()))
        page.wait_for_selector("#timeline rect.bar")
        for index in range(len(HOSTILE)):
            page.locator("#timeline rect.bar").nth(index).dispatch_event("click")
            page.wait_for_selector("#versions tr.version")
        text = page.inner_text("body")
        for hostile in HOSTILE[:3]:
            assert hostile in text
        assert "evil[U+202E]txt.exe" in text and "\u202e" not in text
        assert page.query_selector("img") is None and dialogs == []
        hrefs = [a.get_attribute("href") for a in page.query_selector_all("a")]
        assert not any(h and h.lower().startswith("javascript") for h in hrefs)
        # Its own four and the chart library it ships, nothing added.
        assert page.evaluate("document.scripts.length") == 5
    finally:
        assert server.stop()[0] == 0


def test_the_sessions_list_filters_sorts_and_pages(
    tmp_path: Path, open_page: Callable[..., Opened]
) -> None:
    path = tmp_path / "many.sqlite"
    events = []
    for number in range(120):
        calls = [f"s{number}-c{k}" for k in range(number % 4 + 1)]
        events += stored(
            [e for c in calls for e in (requested(c), started(c), completed(c))],
            session=f"agent-{number:03d}",
        )
    with SQLiteEventStore(path) as store:
        store.import_events(events).unwrap()
    server = Served(path)
    try:
        opened = open_page(server, "/?sort=session")  # by name (the default: most recent first)
        page = opened.page
        page.wait_for_selector("#sessions[data-total='120']")
        names = [a.inner_text() for a in page.query_selector_all("#sessions a")]
        assert names == [f"agent-{n:03d}" for n in range(50)]
        page.click("#sessions-next")
        page.wait_for_function(
            "() => document.querySelector('#sessions a').textContent === 'agent-050'"
        )
        assert "offset=50" in page.url and "sort=session" in page.url
        page.fill("#filter", "agent-11")
        page.wait_for_selector("#sessions[data-total='10']")
        page.fill("#filter", "")
        calls = page.locator("#sessions th", has_text="calls")
        calls.click()  # by calls: fewest first, then most
        page.wait_for_selector("#sessions th.sorted:has-text('calls ▲')")
        page.locator("#sessions th", has_text="calls").click()
        most = "document.querySelector('#sessions tr.session td.num').textContent"
        page.wait_for_function(f"() => {most} === '4'")
        page.click("#sessions a")
        page.wait_for_selector("[data-testid=last-sequence]:text('12')")
    finally:
        assert server.stop()[0] == 0


def test_a_bad_address_says_what_is_wrong(served: Served, open_page: Callable[..., Opened]) -> None:
    for path, words in (
        ("/sessions/nope", "no session 'nope'"),
        (f"/sessions/{SESSION}?at=99999", "at=99999 is outside session"),
        (f"/sessions/{SESSION}?at=abc", "at='abc' is not a whole number"),
        (f"/sessions/{SESSION}?invocation=ghost", "'ghost' was never requested"),
    ):
        opened = open_page(served, path)
        opened.page.wait_for_selector(f'#error:has-text("{words}")')
        # The browser logs the 404 it was answered with, and nothing else.
        assert all("status of 404" in error for error in opened.errors), opened.errors
        opened.errors.clear()


def test_a_damaged_session_is_listed_as_damaged_beside_the_others(
    tmp_path: Path, open_page: Callable[..., Opened]
) -> None:
    path = tmp_path / "damaged.sqlite"

    def calls(name: str) -> list[object]:
        a, b = f"{name}-a", f"{name}-b"
        return [requested(a), started(a), completed(a), requested(b), started(b)]

    with SQLiteEventStore(path) as written:
        written.import_events(
            [*stored(calls("fine"), session="fine"), *stored(calls("holed"), session="holed")]
        ).unwrap()
    subprocess.run(
        [sys.executable, "-c", "import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); "
         "c.execute(\"DELETE FROM events WHERE session_id = 'holed' AND sequence = 2\"); "
         "c.commit()", str(path)],
        check=True,
    )  # fmt: skip
    server = Served(path, "--lenient")
    try:
        page = open_page(server).page
        rows = page.locator("#sessions tr").all_inner_texts()
        fine = next(row for row in rows if row.startswith("fine"))
        holed = next(row for row in rows if row.startswith("holed"))
        assert "\t2\t" in fine.replace(" ", "")  # its invocations are counted
        assert "damaged:" in holed and "correx-tools verify" in holed
    finally:
        assert server.stop()[0] == 0


# -- ids, links and the address (the page names calls as the command does) ---------------------


def test_each_id_is_the_commands_short_id_whole_and_a_link_to_its_call(
    served: Served, open_page: Callable[..., Opened]
) -> None:
    opened = open_page(served, f"/sessions/{SESSION}?at=300&a=20&b=380")
    page = opened.page
    scrubbed(opened, 300)
    page.wait_for_selector("#diff-result tr.change a.ref")
    page.wait_for_selector("#refused a.ref")
    links = page.eval_on_selector_all(
        "#session-view a.ref",
        """links => links.map(a => ({text: a.textContent, title: a.title,
            href: a.getAttribute('href'), ref: a.dataset.ref,
            cut: [a, a.parentElement].some(e => getComputedStyle(e).textOverflow === 'ellipsis'
                                                && getComputedStyle(e).overflow === 'hidden')}))""",
    )
    assert len(links) > 20
    for link in links:
        assert link["title"].startswith(f"{SESSION}/call-")  # the whole id, on hover
        assert link["text"] == short(link["title"]) and not link["cut"]
        target = urllib.parse.urlsplit(link["href"])
        query = urllib.parse.parse_qs(target.query)
        assert target.path == f"/sessions/{SESSION}" and query["invocation"] == [link["ref"]]
        assert query["at"] == ["300"] and query["a"] == ["20"] and query["b"] == ["380"]
    hrefs = page.eval_on_selector_all("#session-view a", "all => all.map(a => a.href)")
    assert all(h.startswith(f"{served.base}/sessions/") for h in hrefs), hrefs


def test_a_middle_click_opens_the_call_in_a_new_tab_and_a_plain_click_in_place(
    served: Served, open_page: Callable[..., Opened]
) -> None:
    opened = open_page(served, f"/sessions/{SESSION}?at=300")
    page = opened.page
    scrubbed(opened, 300)
    page.evaluate("window.stayed = true")
    first = page.locator("#recent a.ref").first
    invocation = first.get_attribute("title")
    with page.context.expect_page() as tab:
        first.click(button="middle")
    other = Opened(tab.value)
    other.page.wait_for_selector(f"[data-testid=history][data-invocation='{invocation}']")
    assert f"invocation={urllib.parse.quote(invocation, safe='')}" in other.page.url
    assert int(other.page.inner_text("[data-testid=sequence]")) == 300 and other.errors == []
    other.page.close()
    assert page.get_attribute("[data-testid=history]", "data-invocation") is None
    first.click()
    page.wait_for_selector(f"[data-testid=history][data-invocation='{invocation}']")
    assert page.evaluate("window.stayed") is True  # opened in place, not loaded again
    assert "invocation=" in page.url


@settings(max_examples=40)
@given(
    pairs=st.lists(
        st.tuples(st.text(st.sampled_from("ab/:-_.#x\ud7ff\ue000\U0010ffff"), max_size=4),
                  st.text(st.sampled_from("ab/:-_.#x\ud7ff\ue000\U0010ffff"), max_size=7)),
        max_size=30,
    )
)  # fmt: skip
def test_the_pages_short_id_is_the_commands(
    served: Served, browser: Any, pairs: list[tuple[str, str]]
) -> None:
    page = shared_page(browser, served)
    shown = page.evaluate("pairs => pairs.map(p => CX.shortId(p[0], p[1]))", pairs)
    assert shown == [short_invocation_id(session, invocation) for session, invocation in pairs]


_PAGES: dict[int, Any] = {}


def shared_page(browser: Any, served: Served) -> Any:
    """One page of the server's for the property's examples (its scripts loaded)."""
    key = id(browser)
    if key not in _PAGES or _PAGES[key].is_closed():
        page = browser.new_page()
        page.goto(served.link("/"))
        page.wait_for_selector("body[data-ready]")
        _PAGES[key] = page
    return _PAGES[key]


def test_search_runs_at_the_scrubbed_sequence_and_its_question_is_in_the_address(
    served: Served, asked: DefaultToolRepository, open_page: Callable[..., Opened]
) -> None:
    opened = open_page(served, f"/sessions/{SESSION}?at=300")
    page = opened.page
    scrubbed(opened, 300)
    page.select_option("#search-status", "failed")
    page.click("#search-run")
    state = asked.at(SessionId(SESSION), 300).unwrap()
    failing = [r.invocation_id for r in state.records() if r.status is ToolInvocationStatus.FAILED]
    page.wait_for_selector(f"#search-results[data-at='300'][data-found='{len(failing)}']")
    assert failing and "status=failed" in page.url and "at=300" in page.url
    names = page.locator("#search-results tr.match td:first-child").all_inner_texts()
    assert names == [short(i) for i in failing]
    again = open_page(served, urllib.parse.urlsplit(page.url).path + "?" + page.url.split("?")[1])
    again.page.wait_for_selector(f"#search-results[data-at='300'][data-found='{len(failing)}']")
    assert again.page.input_value("#search-status") == "failed"
    page.fill("#seq", "440")
    page.press("#seq", "Enter")  # the search follows the scrubber
    later = asked.at(SessionId(SESSION), 440).unwrap()
    count = sum(1 for r in later.records() if r.status is ToolInvocationStatus.FAILED)
    page.wait_for_selector(f"#search-results[data-at='440'][data-found='{count}']")
    page.go_back()
    scrubbed(opened, 300)
    page.wait_for_selector(f"#search-results[data-at='300'][data-found='{len(failing)}']")
    page.go_back()  # before the search: none
    page.wait_for_function("() => !document.querySelector('#search-results tr.match')")
    assert "status=" not in page.url and page.input_value("#search-status") == ""


def in_view(page: Any, selector: str) -> bool:
    """Whether the element's top is on the screen, with room below it to read."""
    box = page.locator(selector).bounding_box()  # relative to the viewport
    return box is not None and 0 <= box["y"] < page.viewport_size["height"] - 100


def test_a_diff_error_is_shown_at_the_diff_and_an_opened_call_is_brought_into_view(
    served: Served, asked: DefaultToolRepository, open_page: Callable[..., Opened]
) -> None:
    opened = open_page(served, f"/sessions/{SESSION}?a=20&b=380")
    page = opened.page
    page.wait_for_selector("#diff-result tr.change")
    page.fill("#diff-a", "380")
    page.fill("#diff-b", "20")
    page.click("#diff-run")
    page.wait_for_selector("#diff-error:has-text('a=380 is after b=20')")
    assert page.locator("#diff-result tr.change").count() == 0  # the stale answer is gone
    error = page.locator("#diff-error").bounding_box()
    assert error["y"] >= 0 and error["y"] + error["height"] <= page.viewport_size["height"]
    assert page.inner_text("#error") == ""
    assert opened.errors == [
        "Failed to load resource: the server responded with a status of 400 (Bad Request)"
    ]
    opened.errors.clear()
    assert "a=380" in page.url
    page.fill("#diff-b", "390")
    page.click("#diff-run")
    changes = asked.diff(SessionId(SESSION), 380, 390).unwrap()
    page.wait_for_selector(f"#diff-result[data-total='{len(changes)}']")
    assert page.inner_text("#diff-error") == ""
    page.locator("#diff-result a.ref").last.click()  # far below the call's panel
    page.wait_for_selector("[data-testid=history] #versions")
    assert in_view(page, "[data-testid=history]")


def test_keys_move_open_and_search_but_not_while_typing(
    served: Served, asked: DefaultToolRepository, open_page: Callable[..., Opened]
) -> None:
    opened = open_page(served, f"/sessions/{SESSION}?at=300")
    page = opened.page
    scrubbed(opened, 300)
    page.keyboard.press("j")
    scrubbed(opened, 301)
    page.keyboard.press("ArrowLeft")
    scrubbed(opened, 300)
    state = asked.get(SessionId(SESSION)).unwrap()
    ends = sorted(
        seq for r in state.records() if r.status in (ToolInvocationStatus.FAILED,
                                                     ToolInvocationStatus.REJECTED)
        for seq, v in asked.history(SessionId(SESSION), r.invocation_id).unwrap()
        if v.status is r.status
    )  # fmt: skip
    page.keyboard.press("n")
    after = next(seq for seq in ends if seq > 300)
    scrubbed(opened, after)
    page.wait_for_selector("[data-testid=history] #versions")
    page.keyboard.press("[")
    scrubbed(opened, max(seq for seq in ends if seq < after))
    sequence = at(opened) - 1
    page.keyboard.press("k")
    scrubbed(opened, sequence)
    event = page.locator("#recent tr.current a.ref")
    invocation = event.get_attribute("title")
    page.keyboard.press("o")
    page.wait_for_selector(f"[data-testid=history][data-invocation='{invocation}']")
    page.keyboard.press("/")
    assert page.evaluate("document.activeElement.id") == "search-text"
    page.keyboard.type("jjkn?")
    assert at(opened) == sequence and page.is_hidden("#help")
    assert page.input_value("#search-text") == "jjkn?"
    page.keyboard.press("Escape")
    page.keyboard.press("?")
    assert page.is_visible("#help")
    keys = page.locator("#help-keys td.keys").all_inner_texts()
    assert keys[:4] == ["j or →", "k or ←", "n or ]", "p or ["]
    page.keyboard.press("Escape")
    assert page.is_hidden("#help")
    assert "j / k" in page.inner_text("#keys-hint")  # the keys are on the page itself


def test_the_keys_on_the_page_are_the_keys_the_docs_list(
    served: Served, open_page: Callable[..., Opened]
) -> None:
    page = open_page(served, f"/sessions/{SESSION}").page
    shown = page.eval_on_selector_all(
        "#help-keys tr:not(:first-child)",
        "rows => rows.map(r => [[...r.querySelectorAll('kbd')].map(k => k.textContent), "
        "r.cells[1].textContent])",
    )
    docs = (ROOT / "docs" / "serve.md").read_text(encoding="utf-8")
    table = docs.split("| keys | does |\n|---|---|\n", 1)[1].split("\n\n", 1)[0]
    listed = [f"| {' or '.join(f'`{k}`' for k in keys)} | {does} |" for keys, does in shown]
    assert table.splitlines() == listed and len(listed) == 10


def test_words_do_not_break_and_the_first_load_claims_no_change(
    served: Served, browser: Any, open_page: Callable[..., Opened]
) -> None:
    opened = open_page(served, f"/sessions/{SESSION}")
    page = opened.page
    last = at(opened)
    page.wait_for_selector("#recent tr.current")
    title = page.text_content("#diff-title")
    assert f"{last:,} to {last:,}" not in title and title == "Changed since the last position"
    assert page.locator("#diff tr.nothing-yet").count() == 1
    page.keyboard.press("k")
    page.wait_for_function("() => /from/i.test(document.querySelector('#diff-title').textContent)")
    assert page.text_content("#diff-title").startswith(f"Changed from {last:,} to {last - 1:,}")
    page.set_viewport_size({"width": 1000, "height": 900})  # three panels, each narrow
    page.keyboard.press("j")
    scrubbed(opened, last)
    broken = page.evaluate(
        """() => [...document.querySelectorAll(
            '#recent td:nth-child(2), #recent td:nth-child(4), #in-flight td:nth-child(n+2),'
            + ' #diff td:nth-child(n+2), #tools td:first-child')].filter(td => {
            const range = document.createRange(); range.selectNodeContents(td);
            return new Set([...range.getClientRects()].map(r => Math.round(r.top))).size > 1;
        }).map(td => td.textContent)"""
    )
    assert broken == []


def test_the_pages_words_are_explained_on_it(
    served: Served, open_page: Callable[..., Opened]
) -> None:
    opened = open_page(served, f"/sessions/{SESSION}?invocation={SESSION}%2Fcall-00077")
    page = opened.page
    page.wait_for_selector("[data-testid=history] #versions")
    for status in ("rejected", "refused", "requested", "started", "failed", "completed"):
        assert page.get_attribute(f"#count-{status}", "title")
    assert page.get_attribute("[data-testid=history] abbr.word:has-text('tier')", "title")
    assert page.get_attribute("abbr:has-text('In flight')", "title")
    assert page.get_attribute("#refused abbr:has-text('illegal transition')", "title")
    page.click("#help-button")
    words = dict(
        zip(
            page.locator("#help-words dt").all_inner_texts(),
            page.locator("#help-words dd").all_inner_texts(),
            strict=True,
        )
    )
    for term in ("refused", "rejected", "tier", "in flight"):
        assert len(words[term]) > 20, term
    assert "elevated" in words["tier"] and "--lenient" in words["refused"]
