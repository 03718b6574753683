"""The conversation in the views: what was said found by the searches (masked whole first),
on real Claude Code and Codex transcripts, through the API and on the page."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from .browsing import Opened, module_browser
from .serving import Served
from .test_cli import run, run_json
from .transcript_samples import DATA

playwright = pytest.importorskip("playwright.sync_api")
browser = module_browser()

SHORT = DATA / "claude-code" / "short_two_rejections.jsonl"
SUBAGENT = DATA / "claude-code" / "session_4d5611e5_subagent_a2898e3.jsonl"
CODEX = next((DATA / "codex").glob("rollout-*.jsonl"))
SESSION = "55604662-cf2a-4331-851a-ec234028f8ca"
SUBAGENT_SESSION = "4d5611e5-241a-462a-8d15-5122611a9569%2Fagent-a2898e3"
BASH = "toolu_0116Hyi5v8ut7Ffb7d8qV1Sc"
GLOB = "toolu_01FdQ8qTyVyZjE3Kw4dguQGx"
SECRET = "sk-ant-api03-" + "Q" * 40
HOSTILE = '<img src=x onerror="document.title=1">'


def with_secret(path: Path) -> Path:
    """The short session with a secret and markup in its prompt (the rest as recorded)."""
    records = [json.loads(line) for line in SHORT.read_text(encoding="utf-8").splitlines()]
    records[3]["message"]["content"] = f"mix phx.server dies, deploy key {SECRET} {HOSTILE}"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


LONG_SESSION = "5560ffff-cf2a-4331-851a-ec234028f8ca"


def long_prompt(path: Path) -> Path:
    """The short session again (another id), its prompt a secret where a title is cut."""
    text = SHORT.read_text(encoding="utf-8").replace(SESSION, LONG_SESSION)
    records = [json.loads(line) for line in text.splitlines()]
    records[3]["message"]["content"] = "x" * 110 + " " + SECRET
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("talk-views") / "agents"
    folder.mkdir()
    with_secret(folder / "session.jsonl")
    shutil.copy(SUBAGENT, folder)
    shutil.copy(CODEX, folder)
    long_prompt(folder / "long.jsonl")
    server = Served(folder, "--no-cache")
    yield server
    server.stop()


def test_a_prompts_words_are_found_in_its_session_and_everywhere(served: Served) -> None:
    # The subagent's prompt, as Claude Code recorded it.
    found = served.every_match(f"/api/v1/sessions/{SUBAGENT_SESSION}/said", q="VERY THOROUGH")
    assert [(m["sequence"], m["kind"]) for m in found] == [(2, "prompt")]
    assert found[0]["snippet"].startswith("Very thorough exploration.")
    # The assistant's words and reasoning are searched too.
    words = served.every_match(f"/api/v1/sessions/{SESSION}/said", q="project structure")
    assert [(m["sequence"], m["kind"]) for m in words] == [(4, "reasoning"), (5, "text")]
    assert {m["model"] for m in words} == {"claude-opus-4-6"}
    every = served.every_match("/api/v1/said", q="greek.rs")
    assert [(m["session_id"], m["sequence"], m["kind"]) for m in every] == [
        ("019a95d1-3c7e-7b22-a4f0-6e1d2c9b8a53", 2, "prompt")
    ]
    assert every[0]["href"].endswith("?at=2")
    # Before the prompt was said, it is not found.
    early = served.answer(f"/api/v1/sessions/{SUBAGENT_SESSION}/said", q="thorough", at=1)
    assert early["matches"] == [] and early["next"] is None


def test_a_secret_in_a_prompt_is_found_only_masked(served: Served) -> None:
    assert served.every_match(f"/api/v1/sessions/{SESSION}/said", q=SECRET) == []
    assert served.every_match(f"/api/v1/sessions/{SESSION}/said", q=SECRET[14:30]) == []
    assert served.every_match("/api/v1/said", q=SECRET[:20]) == []
    [hit] = served.every_match(f"/api/v1/sessions/{SESSION}/said", q="deploy key")
    assert hit["kind"] == "prompt" and "[REDACTED]" in hit["snippet"]
    assert SECRET[13:] not in hit["snippet"] and HOSTILE in hit["snippet"]
    masked = served.every_match("/api/v1/said", q="deploy key [redacted]")
    assert [(m["session_id"], m["sequence"]) for m in masked] == [(SESSION, hit["sequence"])]


def test_the_pages_search_finds_what_was_said_and_jumps_to_it(served: Served, browser: Any) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    opened = Opened(page)
    page.goto(served.link(f"/sessions/{SESSION}?q=deploy+key"))
    page.wait_for_selector("#said-results[data-found='1']", timeout=30_000)
    cells = page.query_selector_all("#said-results tr.said-match td")
    assert [c.inner_text() for c in cells[:2]] == ["2", "prompt"]
    text = cells[2].inner_text()
    assert "[REDACTED]" in text and SECRET not in text and HOSTILE in text
    assert page.query_selector("#said-results img") is None and page.title() != "1"
    cells[0].query_selector("a").click()
    page.wait_for_selector("[data-testid='sequence']:text-is('2')", timeout=10_000)
    assert "at=2" in page.url
    # The sessions page's search over every session (through the store's full-text index)
    # lists it with a link to the event.
    page.goto(served.link("/?search=greek.rs"))
    page.wait_for_selector("#everywhere-results tr.hit-row", timeout=30_000)
    said = [
        tr.query_selector("[data-testid='search-hit']")
        for tr in page.query_selector_all("#everywhere-results tr.hit-row")
        if tr.query_selector_all("td")[2].inner_text() == "said"
    ]
    assert [hit.get_attribute("href") for hit in said] == [
        "/sessions/019a95d1-3c7e-7b22-a4f0-6e1d2c9b8a53?at=2"
    ]
    assert opened.errors == []
    page.close()


def test_a_secret_is_never_found_by_searching_for_it(served: Served) -> None:
    # The index holds the prompt as it was written; the server shows it masked, and keeps
    # only the hits whose masked value holds what was asked.
    assert served.answer("/api/v1/sessions")["search_index"] is True
    assert served.answer("/api/v1/hits", q=SECRET.removeprefix("sk-ant-api03-"))["hits"] == []
    assert served.answer("/api/v1/hits", q="sk ant api03", **{"in": "said"})["hits"] == []
    [hit] = served.answer("/api/v1/hits", q='"deploy key"', **{"in": "said"})["hits"]
    assert (hit["session_id"], hit["field"], hit["invocation_id"]) == (SESSION, "said", None)
    assert "[REDACTED]" in hit["snippet"] and SECRET[13:] not in hit["snippet"]
    assert hit["page"] == f"/sessions/{SESSION}?at={hit['sequence']}"


def test_stats_gives_the_tokens_of_the_session_each_turn_and_each_call(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run("import-transcript", str(SHORT), str(store))
    document = run_json("stats", str(store), SESSION)["tokens"]
    # The transcript's own usage record: one message, asking for both calls.
    assert document["total"]["total"] == 25366 and document["recorded"]
    [turn] = document["turns"]
    assert (turn["turn"], turn["prompt_sequence"], turn["calls"]) == (1, 2, 2)
    assert turn["title"] == "mix phx.server doesnt seem to start"
    assert turn["tokens"]["total"] == 25366
    shares = {c["invocation_id"].rsplit("/", 1)[1]: c["tokens"] for c in document["calls"]}
    assert shares[BASH]["cache_write"] + shares[GLOB]["cache_write"] == 13835
    assert (shares[BASH]["output"], shares[GLOB]["output"]) == (7, 6)  # 13 split, one over
    assert document["unattributed"] is None
    text = run("stats", str(store), SESSION).stdout
    assert "tokens: 25,366 (3 / 13 / 11,515 / 13,835)" in text
    assert "mix phx.server doesnt seem to start" in text and "calls by tokens" in text
    # A session imported without its conversation says the store holds none, never 0.
    bare = tmp_path / "bare.sqlite"
    run("import-transcript", str(SHORT), str(bare), "--no-conversation")
    assert run_json("stats", str(bare), SESSION)["tokens"]["total"] is None
    assert "tokens: none in the store" in run("stats", str(bare), SESSION).stdout
    # history gives the call's own share.
    said = run("history", str(store), SESSION, BASH).stdout
    assert "tokens: 12,685 (its share of its message's), cost $0.0463" in said
    spent = run_json("history", str(store), SESSION, BASH)["spent"]
    assert spent["recorded"] and spent["tokens"]["total"] == 12685
    # At a sequence before the usage, none is recorded yet.
    assert run_json("stats", str(store), SESSION, "--at", "2")["tokens"]["total"] is None


def test_the_page_shows_the_turns_and_a_calls_tokens(served: Served, browser: Any) -> None:
    answer = served.answer(f"/api/v1/sessions/{SESSION}/turns")
    assert answer["recorded"] and answer["tokens"]["total"] == 25366
    [turn] = answer["turns"]
    assert SECRET not in json.dumps(answer) and turn["title"].startswith("mix phx.server dies")
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    opened = Opened(page)
    ref = quote(f"{SESSION}/{BASH}", safe="")
    page.goto(served.link(f"/sessions/{SESSION}?invocation={ref}"))
    cell = page.wait_for_selector("[data-testid='call-tokens']", timeout=30_000)
    assert cell.inner_text() == "tokens: 12,685 (its share of its message's) · cost $0.0463"
    assert "cache write 6,918" in (cell.get_attribute("title") or "")
    page.wait_for_selector("#turns[data-count='1']", timeout=10_000)
    cells = [td.inner_text() for td in page.query_selector_all("#turns tr.turn td")]
    assert cells[0] == "1" and cells[2:] == ["2\u201310", "2", "25,366", "$0.0926"]
    assert SECRET not in cells[1] and "[REDACTED]" in cells[1] and "<img src=x" in cells[1]
    assert page.query_selector("#turns img") is None
    assert opened.errors == []
    page.close()


def test_a_title_is_masked_whole_before_it_is_cut(served: Served) -> None:
    # The secret begins before the title's cut and ends after it: cut first, its start would
    # be shown, too short for the masking to know it.
    rows = served.answer("/api/v1/sessions", q=LONG_SESSION[:8])["sessions"]
    [row] = [r for r in rows if r["session_id"] == LONG_SESSION]
    assert row["title"].startswith("x" * 110 + " [REDACTE") and "sk-ant" not in row["title"]
    [turn] = served.answer(f"/api/v1/sessions/{LONG_SESSION}/turns")["turns"]
    assert turn["title"] == row["title"]


def test_turns_are_bands_and_prompts_marks_reached_by_click_tab_and_keys(
    served: Served, browser: Any
) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    opened = Opened(page)
    codex = "019a95d1-3c7e-7b22-a4f0-6e1d2c9b8a53"  # two prompts: at sequences 2 and 28
    page.goto(served.link(f"/sessions/{codex}?at=42"))
    page.wait_for_selector("#timeline .prompt-mark[data-sequence='28']", timeout=30_000)
    bands = page.query_selector_all("#timeline .turn-band")
    assert [b.get_attribute("data-turn") for b in bands] == ["1", "2"]
    widths = [float(b.get_attribute("width") or 0) for b in bands]
    assert all(w > 10 for w in widths)
    marks = page.query_selector_all("#timeline .prompt-mark")
    assert [m.get_attribute("data-sequence") for m in marks] == ["2", "28"]
    assert "ベンチマーク" in (marks[1].text_content() or "")  # the prompt's title on hover
    marks[1].click()
    page.wait_for_selector("[data-testid='sequence']:text-is('28')", timeout=10_000)
    # The keys: the previous prompt, then the next one, from the scrubber.
    page.keyboard.press("T")
    page.wait_for_selector("[data-testid='sequence']:text-is('2')", timeout=10_000)
    page.keyboard.press("t")
    page.wait_for_selector("[data-testid='sequence']:text-is('28')", timeout=10_000)
    page.keyboard.press("t")
    page.wait_for_selector("#seek-note:text-is('no later prompt')", timeout=10_000)
    # A mark is reached with Tab and taken with Enter.
    page.focus("#timeline .prompt-mark[data-sequence='2']")
    assert page.evaluate("document.activeElement.getAttribute('data-sequence')") == "2"
    page.keyboard.press("Enter")
    page.wait_for_selector("[data-testid='sequence']:text-is('2')", timeout=10_000)
    assert "at=2" in page.url
    assert opened.errors == []
    page.close()


def test_the_list_is_most_recent_first_in_local_time_and_grouped_by_project_on_asking(
    served: Served, browser: Any
) -> None:
    context = browser.new_context(timezone_id="Asia/Tokyo", viewport={"width": 1500, "height": 900})
    page = context.new_page()
    opened = Opened(page)
    page.goto(served.link("/"))
    page.wait_for_selector("#sessions[data-total='4']", timeout=30_000)
    heads = [th.inner_text().rstrip(" ▲") for th in page.query_selector_all("#sessions th")]
    assert heads == ["session", "last moved", "agent", "project", "title", "model", "calls",
                     "failures", "tokens", "cost"]  # fmt: skip
    listed = served.answer("/api/v1/sessions")["sessions"]  # the command's order
    rows = page.query_selector_all("#sessions tr.session")
    assert [r.query_selector("a").get_attribute("title") for r in rows] == [
        s["session_id"] for s in listed
    ]
    mine = next(r for r in rows if r.query_selector("a").get_attribute("title") == SESSION)
    cells = [td.inner_text() for td in mine.query_selector_all("td")]
    assert cells[2:4] == ["claude-code", "spotter"]  # the project's whole path on hover
    assert mine.query_selector("td.project span").get_attribute("title") == (
        "/home/marco/projects/spotter"
    )
    assert cells[6:9] == ["2", "2", "25,366"]  # two calls, both rejected
    # 21:12:02.480 UTC is 06:12 the next day in Tokyo; the UTC values are on hover.
    moved = mine.query_selector("td.when span.time")
    assert moved.inner_text() == "2026-02-11 06:12"
    assert moved.get_attribute("title") == (
        "first 2026-02-10 21:11:52.438000 UTC · last 2026-02-10 21:12:02.480000 UTC"
    )
    # The project's column groups the list under each project, its latest session first; the
    # project is said once, in its heading, not on each row.
    page.locator("#sessions th", has_text="project").click()
    page.wait_for_selector("#sessions tr.group")
    groups = [
        tr.get_attribute("data-project") for tr in page.query_selector_all("#sessions tr.group")
    ]
    # Each project's latest session: 2026-02-12, 2026-02-10, 2025-11-18.
    assert groups == [
        "/home/USER/projects/spotter-worktrees/spotter-dov",
        "/home/marco/projects/spotter",
        "/home/yuki/translit-rs",
    ]
    assert (
        "sort=project" in page.url
        and page.query_selector("#sessions tr.session td.project") is None
    )
    assert "project" not in [th.inner_text() for th in page.query_selector_all("#sessions th")]
    page.locator("#sessions th", has_text="last moved").click()
    page.wait_for_function("() => !document.querySelector('#sessions tr.group')")
    assert opened.errors == []
    context.close()


def test_sessions_gives_each_sessions_agent_project_and_times(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run("import-transcript", str(SHORT), str(store))
    [row] = run_json("sessions", str(store))["sessions"]
    assert (row["agent"], row["project"]) == ("claude-code", "/home/marco/projects/spotter")
    assert (row["first_time"], row["last_time"]) == (
        "2026-02-10T21:11:52.438000Z",
        "2026-02-10T21:12:02.480000Z",
    )
    text = run("sessions", str(store), "--wide", "--tz", "UTC").stdout
    header = text.splitlines()[0]
    assert header.split()[:4] == ["session", "first", "(local)", "last"]
    assert "2026-02-10 21:11  2026-02-10 21:12  claude-code  /home/marco/projects/spotter" in text
    compact = run("sessions", str(store), "--tz", "UTC").stdout
    assert "02-10 21:12  spotter" in compact  # the last time, and the project's own name


def test_the_report_shows_times_in_the_viewers_zone_with_utc_on_hover(
    tmp_path: Path, browser: Any
) -> None:
    store = tmp_path / "s.sqlite"
    run("import-transcript", str(SHORT), str(store))
    out = tmp_path / "report.html"
    run("report", str(store), SESSION, "-o", str(out))
    context = browser.new_context(timezone_id="America/New_York")
    page = context.new_page()
    opened = Opened(page)
    page.goto(out.as_uri())
    page.wait_for_selector("body[data-ready]", timeout=60_000)
    # The first call was requested at 21:12:01.117 UTC: 16:12:01.117 in New York (EST).
    times = page.query_selector_all("#overview span.time")
    assert times[0].inner_text() == "2026-02-10 16:12:01.117"
    assert times[0].get_attribute("title") == "2026-02-10 21:12:01.117 UTC"
    page.click("#timeline rect.bar[data-index='0']")
    requested = page.wait_for_selector("#versions tr.version span.time", timeout=10_000)
    assert requested.inner_text() == "2026-02-10 16:12:01.117"
    assert (requested.get_attribute("title") or "").startswith("2026-02-10 21:12:01.117")
    assert opened.errors == []
    context.close()


def test_a_session_imported_without_its_conversation_says_the_store_holds_none(
    tmp_path: Path, browser: Any
) -> None:
    bare = tmp_path / "bare.sqlite"
    run("import-transcript", str(SHORT), str(bare), "--no-conversation")
    # Claude Code records usage: "none recorded" would be a claim about the transcript.
    [row] = run_json("sessions", str(bare))["sessions"]
    assert (row["said"], row["tokens"]) == (0, None)
    said = run("history", str(bare), SESSION, BASH).stdout
    assert "tokens: none in the store" in said and "none recorded" not in said
    assert run_json("history", str(bare), SESSION, BASH)["spent"] == {
        "recorded": False, "said": 0, "tokens": None
    }  # fmt: skip
    server = Served(bare)
    try:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        opened = Opened(page)
        page.goto(server.link("/"))
        page.wait_for_selector("#sessions[data-total='1']", timeout=30_000)
        assert page.inner_text("#sessions tr.session .tokens") == "none in the store"
        ref = quote(f"{SESSION}/{BASH}", safe="")
        page.goto(server.link(f"/sessions/{SESSION}?invocation={ref}"))
        cell = page.wait_for_selector("[data-testid='call-tokens']", timeout=30_000)
        assert cell.inner_text() == "tokens: none in the store"
        assert opened.errors == []
        page.close()
    finally:
        assert server.stop()[0] == 0
