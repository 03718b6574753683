"""Driving the distribution's Chromium with Playwright, for the pages' tests.

No browser is downloaded: Playwright launches the Chromium the distribution
installs (``CORREX_TEST_CHROMIUM`` names another). Without one the tests are
skipped, except in CI, where a run must never pass without a browser.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable, Iterator
from typing import Any

import pytest

CHROMIUM_FLAGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]


def chromium_path() -> str:
    """The distribution's Chromium (``CORREX_TEST_CHROMIUM`` to use another)."""
    found = os.environ.get("CORREX_TEST_CHROMIUM") or next(
        filter(None, map(shutil.which, ("chromium", "chromium-browser", "google-chrome"))), None
    )
    if found is None:
        reason = "no Chromium: install the distribution's chromium package"
        if os.environ.get("CI"):
            pytest.fail(reason)
        pytest.skip(reason)
    return found


@pytest.fixture(scope="session")
def chromium() -> Iterator[Any]:
    """One headless Chromium for a worker's whole run: a launch (and Playwright's driver)
    costs about a second of CPU, and sixteen modules drive a browser."""
    playwright = pytest.importorskip("playwright.sync_api")
    with playwright.sync_playwright() as driver:
        launched = driver.chromium.launch(executable_path=chromium_path(), args=CHROMIUM_FLAGS)
        yield launched
        launched.close()


def module_browser() -> Callable[[], Iterator[Any]]:
    """A fixture: the worker's Chromium for the module's tests, every page and context the
    module opened closed after its last test (as a browser of its own would be)."""

    @pytest.fixture(scope="module")
    def browser(chromium: Any) -> Iterator[Any]:
        yield chromium
        for context in chromium.contexts:
            context.close()

    return browser


class Opened:
    """A report open in a page, with every script error and network request it made."""

    def __init__(self, page: Any) -> None:
        self.page, self.errors, self.requests = page, [], []
        page.on("pageerror", lambda error: self.errors.append(str(error)))
        page.on("console", lambda m: self.errors.append(m.text) if m.type == "error" else None)
        page.on("request", lambda r: self.requests.append(r.url))

    def counts(self, prefix: str = "count-") -> dict[str, int]:
        chips = self.page.query_selector_all(f".chip[id^='{prefix}']")
        return {
            chip.get_attribute("id").removeprefix(prefix): int(
                chip.query_selector("b").inner_text().replace(",", "")
            )
            for chip in chips
        }

    def scrub(self, sequence: int) -> None:
        self.page.fill("#scrubber", str(sequence))  # a range input: sets it and fires input
