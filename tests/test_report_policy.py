"""The report's content security policy runs its own two scripts and nothing else.

The page ``correx-tools report`` writes carries its scripts inline (one file,
opened from disk), so its policy names each by its digest instead of allowing
every inline script: a script that found its way into the page (a value that
escaped its quoting, a file edited after it was written) does not run. Held in
Chromium: the page works, and an added script is refused.
"""

from __future__ import annotations

import base64
import hashlib
import html
import re
from pathlib import Path
from typing import Any

import pytest

from correx_tools import SQLiteEventStore

from .browsing import Opened, module_browser
from .commands import correx
from .strategies import completed, failed, requested, started, stored

playwright = pytest.importorskip("playwright.sync_api")

browser = module_browser()
_POLICY = re.compile(r'<meta http-equiv="Content-Security-Policy" content="([^"]*)">')
_INLINE = re.compile(r"<script>(.*?)</script>", re.DOTALL)


@pytest.fixture(scope="module")
def page(tmp_path_factory: pytest.TempPathFactory) -> Path:
    folder = tmp_path_factory.mktemp("report-policy")
    with SQLiteEventStore(folder / "run.sqlite") as written:
        events = [requested("a"), started("a"), completed("a"), requested("b"), failed("b")]
        written.import_events(stored(events, session="run-1")).unwrap()
    correx("report", "run.sqlite", "run-1", "-o", "run.html", cwd=folder, check=True)
    return folder / "run.html"


def _script_sources(text: str) -> list[str]:
    found = _POLICY.search(text)
    assert found, "the report has no content security policy"
    directives = dict(d.strip().split(" ", 1) for d in html.unescape(found[1]).split(";"))
    return directives["script-src"].split()


def test_the_policy_names_each_inline_script_by_its_digest(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    sources = _script_sources(text)
    assert "'unsafe-inline'" not in sources and "'unsafe-eval'" not in sources
    scripts = _INLINE.findall(text)
    digests = [hashlib.sha256(script.encode()).digest() for script in scripts]
    assert len(scripts) == 2
    assert sources == [f"'sha256-{base64.b64encode(d).decode()}'" for d in digests]


def test_the_page_runs_and_a_script_added_to_it_does_not(page: Path, browser: Any) -> None:
    added = page.with_name("added.html")
    text = page.read_text(encoding="utf-8")
    added.write_text(
        text.replace("</body>", "<script>document.body.dataset.added = '1'</script></body>"),
        encoding="utf-8",
    )
    for path, refusals in ((page, 0), (added, 1)):
        opened = Opened(browser.new_page())
        opened.page.goto(path.as_uri())
        opened.page.wait_for_selector("body[data-ready]", timeout=60_000)
        assert opened.page.inner_text("#session") == "run-1"
        assert opened.page.get_attribute("body", "data-added") is None
        assert len(opened.errors) == refusals, opened.errors
        assert all("Content Security Policy" in error for error in opened.errors)
        opened.page.close()


def test_only_the_pages_own_styles_apply(page: Path, browser: Any) -> None:
    text = page.read_text(encoding="utf-8")
    found = _POLICY.search(text)
    assert found
    directives = dict(d.strip().split(" ", 1) for d in html.unescape(found[1]).split(";"))
    styles = re.findall(r"<style>(.*?)</style>", text, re.DOTALL)
    assert len(styles) == 1
    digest = base64.b64encode(hashlib.sha256(styles[0].encode()).digest()).decode()
    assert directives["style-src"].split() == [f"'sha256-{digest}'"]
    added = page.with_name("styled.html")
    added.write_text(
        text.replace("</body>", "<style>body { background: rgb(1, 2, 3) }</style></body>"),
        encoding="utf-8",
    )
    backgrounds = []
    for path, refusals in ((page, 0), (added, 1)):
        opened = Opened(browser.new_page())
        opened.page.goto(path.as_uri())
        opened.page.wait_for_selector("body[data-ready]", timeout=60_000)
        backgrounds.append(opened.page.evaluate("getComputedStyle(document.body).backgroundColor"))
        # The page's own stylesheet applies: its body padding, not the browser's 8px margin.
        assert opened.page.evaluate("getComputedStyle(document.body).paddingLeft") == "24px"
        assert len(opened.errors) == refusals, opened.errors
        assert all("Content Security Policy" in error for error in opened.errors)
        opened.page.close()
    assert backgrounds[0] == backgrounds[1] != "rgb(1, 2, 3)"  # the page's own, not the added
