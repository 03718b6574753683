"""What led to a call: the prompt of its turn and the words before it, by the rule, in
``history``, in the API (masked) and on the page (text, reasoning folded)."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from correx_tools import AssistantText, Prompt, Reasoning, TokenUsage, Usage, conversation_event
from correx_tools.core.replay.lead_up import lead_up

from .browsing import Opened, module_browser
from .serving import Served
from .strategies import requested
from .test_cli import run, run_json
from .transcript_samples import DATA

playwright = pytest.importorskip("playwright.sync_api")
browser = module_browser()

SHORT = DATA / "claude-code" / "short_two_rejections.jsonl"
SESSION = "55604662-cf2a-4331-851a-ec234028f8ca"
BASH = "toolu_0116Hyi5v8ut7Ffb7d8qV1Sc"
GLOB = "toolu_01FdQ8qTyVyZjE3Kw4dguQGx"
SECRET = "sk-ant-api03-" + "Q" * 40
HOSTILE = '<img src=x onerror="document.title=1">'


def said(*events: object) -> list[tuple[int, object]]:
    """Events numbered from 1, newest first (as the walk takes them)."""
    return list(reversed(list(enumerate(events, start=1))))


def test_calls_asked_for_together_each_have_the_words_said_before_them() -> None:
    events = said(
        conversation_event(Prompt(text="fix it")),
        conversation_event(Usage(usage=TokenUsage(output=3))),
        conversation_event(Reasoning(text="thinking")),
        conversation_event(AssistantText(text="Let me look.")),
        requested("a"),
    )
    found = lead_up(events)
    assert found.prompt is not None and found.prompt.text == "fix it" and found.whole
    assert [(w.sequence, w.kind, w.text) for w in found.before] == [
        (3, "reasoning", "thinking"),
        (4, "text", "Let me look."),
    ]
    # A second call of the same message: the first call's request is passed over.
    again = lead_up(said(*[event for _, event in reversed(events)], requested("b")))
    assert again.before == found.before


def test_the_words_are_the_last_run_before_the_call_and_a_walk_is_bounded() -> None:
    events = said(
        conversation_event(AssistantText(text="old words")),
        requested("a"),
        conversation_event(AssistantText(text="new words")),
        requested("b"),
    )
    found = lead_up(events)
    assert [w.text for w in found.before] == ["new words"]
    assert found.prompt is None and found.whole
    cut = lead_up(said(conversation_event(Prompt(text="p")), *[requested("x")] * 5), limit=3)
    assert cut.prompt is None and not cut.whole


def test_history_shows_the_arguments_and_what_led_to_the_call(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run("import-transcript", str(SHORT), str(store))
    text = run("history", str(store), SESSION, BASH).stdout
    assert '"command": "mix phx.server 2>&1 | head -80"' in text
    lines = text[text.index("what led to it:") :].splitlines()
    assert lines[1:3] == ["  prompt (sequence 2):", "    mix phx.server doesnt seem to start"]
    assert lines[3] == "  reasoning (sequence 4, claude-opus-4-6):"
    assert lines[5] == "  said (sequence 5, claude-opus-4-6):"
    document = run_json("history", str(store), SESSION, GLOB)
    led = document["lead_up"]
    assert led["prompt"]["text"] == "mix phx.server doesnt seem to start"
    assert [w["kind"] for w in led["before"]] == ["reasoning", "text"]
    # Without the conversation the session says it records none.
    bare = tmp_path / "bare.sqlite"
    run("import-transcript", str(SHORT), str(bare), "--no-conversation")
    assert "records no prompt or words" in run("history", str(bare), SESSION, BASH).stdout


def hostile(path: Path) -> Path:
    """The short session with a secret and markup in its prompt and its words."""
    lines = SHORT.read_text(encoding="utf-8").splitlines()
    records = [json.loads(line) for line in lines]
    records[3]["message"]["content"] = f"deploy with {SECRET} {HOSTILE}"
    for block in records[6]["message"]["content"]:
        if block.get("type") == "text":
            block["text"] = f"Using the key {SECRET} now. {HOSTILE}"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("lead-up") / "agents"
    folder.mkdir()
    hostile(folder / "session.jsonl")
    shutil.copy(DATA / "claude-code" / "session_4d5611e5_subagent_a2898e3.jsonl", folder)
    server = Served(folder, "--no-cache")
    yield server
    server.stop()


def history(served: Served, invocation: str) -> dict[str, Any]:
    path = f"/api/v1/sessions/{SESSION}/invocations/{quote(invocation, safe='')}/history"
    answer: dict[str, Any] = served.answer(path)
    return answer


def test_the_api_masks_what_was_said_before_a_call_whole(served: Served) -> None:
    led = history(served, f"{SESSION}/{BASH}")["lead_up"]
    assert SECRET not in json.dumps(led)
    assert led["prompt"]["text"].startswith("deploy with ") and HOSTILE in led["prompt"]["text"]
    words = led["before"][-1]
    assert words["kind"] == "text" and words["text"].startswith("Using the key ")
    assert SECRET[:20] not in words["text"]


def test_a_calls_panel_shows_the_prompt_the_words_and_the_reasoning_folded(
    served: Served, browser: Any
) -> None:
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    opened = Opened(page)
    ref = f"{SESSION}/{BASH}"
    page.goto(served.link(f"/sessions/{SESSION}?invocation={quote(ref, safe='')}"))
    part = page.wait_for_selector("#lead-up", timeout=30_000)
    items = part.query_selector_all(".said")
    assert [i.get_attribute("class") for i in items] == [
        "said prompt",
        "said reasoning",
        "said text",
    ]
    prompt = items[0].query_selector(".said-text").inner_text()
    assert prompt.startswith("deploy with ") and HOSTILE in prompt and SECRET not in prompt
    assert part.query_selector("img") is None and page.title() != "1"
    reasoning = items[1]
    assert reasoning.evaluate("e => e.tagName") == "DETAILS" and not reasoning.evaluate(
        "e => e.open"
    )
    assert not reasoning.query_selector(".said-text").is_visible()
    reasoning.query_selector("summary").click()
    assert reasoning.query_selector(".said-text").inner_text().startswith("The user is having")
    assert "Using the key " in items[2].inner_text()
    assert opened.errors == []
    page.close()


def test_sessions_give_each_imported_session_its_title_models_and_tokens(tmp_path: Path) -> None:
    store = tmp_path / "s.sqlite"
    run("import-transcript", str(SHORT), str(store))
    run("import-transcript", str(SHORT), str(tmp_path / "bare.sqlite"), "--no-conversation")
    [row] = run_json("sessions", str(store))["sessions"]
    assert row["title"] == "mix phx.server doesnt seem to start" and row["title_from"] == "prompt"
    assert row["models"] == ["claude-opus-4-6"]
    assert row["tokens"] == {"input": 3, "output": 13, "cache_read": 11515,
                             "cache_write": 13835, "total": 25366}  # fmt: skip
    text = run("sessions", str(store), "--wide").stdout
    assert "mix phx.server doesnt seem to start" in text
    assert "claude-opus-4-6" in text and "25,366 (3 / 13 / 11,515 / 13,835)" in text
    [bare] = run_json("sessions", str(tmp_path / "bare.sqlite"))["sessions"]
    assert (bare["title"], bare["models"], bare["tokens"]) == (None, [], None)
    assert bare["said"] == 0 and row["said"] > 0
    # Left out at import: the store holds none, which says nothing of the transcript.
    bare_text = run("sessions", str(tmp_path / "bare.sqlite"), "--wide").stdout
    assert "none in the store" in bare_text and "none recorded" not in bare_text


def test_the_page_lists_each_sessions_title_model_and_tokens(served: Served, browser: Any) -> None:
    rows = served.answer("/api/v1/sessions", sort="-tokens")["sessions"]
    assert rows[0]["session_id"].startswith("4d5611e5")  # the most tokens first
    mine = next(r for r in rows if r["session_id"] == SESSION)
    assert SECRET not in json.dumps(mine) and mine["title"].startswith("deploy with ")
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    opened = Opened(page)
    page.goto(served.link("/"))
    page.wait_for_selector("#sessions[data-total='2']", timeout=30_000)
    heads = [th.inner_text() for th in page.query_selector_all("#sessions th")]
    assert [heads[4], heads[5], heads[8]] == ["title", "model", "tokens"]
    cells = {  # by each session's whole id, its link's title
        tr.query_selector("a").get_attribute("title"): [
            td.inner_text() for td in tr.query_selector_all("td")
        ]
        for tr in page.query_selector_all("#sessions tr.session")
    }
    title, model, tokens = cells[SESSION][4], cells[SESSION][5], cells[SESSION][8]
    assert title.startswith("deploy with ") and HOSTILE in title and SECRET not in title
    assert (model, tokens) == ("claude-opus-4-6", "25,366")
    assert page.query_selector("#sessions img") is None
    assert opened.errors == []
    page.close()
