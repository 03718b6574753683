"""The conversation in the views: what was said found by the searches (masked whole first),
on real Claude Code and Codex transcripts, through the API and on the page."""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from .browsing import Opened, module_browser
from .serving import Served
from .transcript_samples import DATA

playwright = pytest.importorskip("playwright.sync_api")
browser = module_browser()

SHORT = DATA / "claude-code" / "short_two_rejections.jsonl"
SUBAGENT = DATA / "claude-code" / "session_4d5611e5_subagent_a2898e3.jsonl"
CODEX = next((DATA / "codex").glob("rollout-*.jsonl"))
SESSION = "55604662-cf2a-4331-851a-ec234028f8ca"
SUBAGENT_SESSION = "4d5611e5-241a-462a-8d15-5122611a9569%2Fagent-a2898e3"
SECRET = "sk-ant-api03-" + "Q" * 40
HOSTILE = '<img src=x onerror="document.title=1">'


def with_secret(path: Path) -> Path:
    """The short session with a secret and markup in its prompt (the rest as recorded)."""
    records = [json.loads(line) for line in SHORT.read_text(encoding="utf-8").splitlines()]
    records[3]["message"]["content"] = f"mix phx.server dies, deploy key {SECRET} {HOSTILE}"
    path.write_text("\n".join(json.dumps(r) for r in records) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    folder = tmp_path_factory.mktemp("talk-views") / "agents"
    folder.mkdir()
    with_secret(folder / "session.jsonl")
    shutil.copy(SUBAGENT, folder)
    shutil.copy(CODEX, folder)
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
    [masked] = served.every_match("/api/v1/said", q="[redacted]")
    assert masked["session_id"] == SESSION and masked["sequence"] == hit["sequence"]


def test_the_pages_search_finds_what_was_said_and_jumps_to_it(
    served: Served, browser: Any
) -> None:
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
    # The sessions page's search over every session lists it with a link to the event.
    page.goto(served.link("/?search=greek.rs"))
    hit = page.wait_for_selector("[data-testid='said-hit']", timeout=30_000)
    assert hit.get_attribute("href").endswith("?at=2")
    assert opened.errors == []
    page.close()
