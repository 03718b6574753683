"""The sessions page in Chromium: the list picked by the commands' filters, which live in the
page's address (so a filtered list is linked and reloaded), its cost column, no horizontal
scroll at 1,280 pixels, and the usage view's charts drawn with ``usage --json``'s numbers.

A real ``correx-tools serve`` runs over a generated Claude Code folder (and every agent's
shared transcripts, whose titles are long and wide); what the page shows is held to what the
command prints for the same question. Each page must raise no script error (a script or
style the content security policy refused would be one) and ask nothing of any other origin.
"""

from __future__ import annotations

import json
import urllib.parse
from collections.abc import Callable
from pathlib import Path

import pytest

from .browsing import Opened, module_browser
from .serving import Served
from .test_serve_catalog import DATA, cache, command, folder, served
from .test_serve_page import open_page, shot

playwright = pytest.importorskip("playwright.sync_api")
browser = module_browser()
WIDTH = 1280


def _shown_ids(opened: Opened) -> list[str]:
    """The sessions the list shows, by the whole id on each link's hover."""
    links = opened.page.query_selector_all("#sessions tr.session a")
    return [a.get_attribute("title") or "" for a in links]


def _costs(opened: Opened) -> list[str]:
    return [td.inner_text() for td in opened.page.query_selector_all("#sessions td.cost")]


def test_a_filtered_list_lives_in_the_address_and_survives_a_reload(
    served: Served, folder: Path, cache: Path, open_page: Callable[..., Opened]
) -> None:
    asked = {"project": "project-00", "since": "2026-11-27", "tz": "UTC"}
    printed = command("sessions", str(folder), "--cache", str(cache), "--limit", "0",
                      *(f"--{k}={v}" for k, v in asked.items()))  # fmt: skip
    assert 0 < printed["total"] < 60
    opened = open_page(served, "/?" + urllib.parse.urlencode(asked), WIDTH)
    page = opened.page
    page.wait_for_selector(f"#sessions[data-total='{printed['total']}']")
    expected = [row["session_id"] for row in printed["sessions"]]
    assert _shown_ids(opened) == expected[:50]  # the most recent first, as the command
    # The cost column says what the command's JSON says (four places under a dollar).
    costs = _costs(opened)
    assert len(costs) == len(expected[:50]) and all(c.startswith("$") for c in costs)
    for shown, row in zip(costs, printed["sessions"], strict=False):
        assert abs(float(shown.removeprefix("$")) - row["cost"]) < 0.00006
    assert page.input_value("#f-project") == "project-00"
    assert page.input_value("#f-since") == "2026-11-27"
    page.reload()
    page.wait_for_selector(f"#sessions[data-total='{printed['total']}']")
    assert _shown_ids(opened) == expected[:50] and page.input_value("#f-project") == "project-00"
    # A filter typed is put in the address, and picks what the command picks.
    haiku = command("sessions", str(folder), "--cache", str(cache), "--limit", "0", "--model",
                    "haiku", *(f"--{k}={v}" for k, v in asked.items()))  # fmt: skip
    page.fill("#f-model", "haiku")
    page.wait_for_selector(f"#sessions[data-total='{haiku['total']}']")
    assert "model=haiku" in page.url and "project=project-00" in page.url
    assert _shown_ids(opened) == [row["session_id"] for row in haiku["sessions"]][:50]
    page.check("#f-failed")
    page.wait_for_function("() => location.search.includes('failed=1')")
    failed = command("sessions", str(folder), "--cache", str(cache), "--limit", "0", "--failed",
                     "--model", "haiku", *(f"--{k}={v}" for k, v in asked.items()))  # fmt: skip
    page.wait_for_selector(f"#sessions[data-total='{failed['total']}']")
    page.click("#f-clear")
    page.wait_for_selector("#sessions[data-total='60']")
    assert urllib.parse.urlsplit(page.url).query == "tz=UTC"  # the zone asked for stays
    assert page.input_value("#f-project") == ""


def test_an_unpriced_model_is_a_question_mark_never_zero(
    open_page: Callable[..., Opened], tmp_path: Path
) -> None:
    server = Served(DATA, "--lenient", "--cache", str(tmp_path / "s.sqlite"))
    try:
        rows = server.answer("/api/v1/sessions", limit=1000)["sessions"]
        opened = open_page(server, "/", WIDTH)
        opened.page.wait_for_selector(f"#sessions[data-total='{len(rows)}']")
        costs = dict(zip(_shown_ids(opened), _costs(opened), strict=True))
        for row in rows:
            if row["cost"] is None and row["unpriced_models"]:
                assert costs[row["session_id"]] == "?"
            elif row["cost"] is None:
                assert costs[row["session_id"]] == "\u2013"  # no tokens recorded: no cost
        unpriced = opened.page.query_selector("#sessions td.cost .unpriced")
        assert unpriced.get_attribute("title").startswith("no price for ")
    finally:
        assert server.stop()[0] == 0


def _scrolls_across(opened: Opened) -> int:
    """How many pixels the page is wider than its window (0: no horizontal scroll)."""
    return int(opened.page.evaluate(
        "() => document.documentElement.scrollWidth - document.documentElement.clientWidth"
    ))  # fmt: skip


@pytest.mark.parametrize("path", ["/", "/?sort=project", "/usage", "/usage?stack=model"])
def test_no_horizontal_scroll_at_1280_pixels(
    open_page: Callable[..., Opened], tmp_path: Path, path: str
) -> None:
    # Every agent's transcripts: long titles, wide (CJK) characters, long model names.
    server = Served(DATA, "--lenient", "--cache", str(tmp_path / "s.sqlite"))
    try:
        opened = open_page(server, path, WIDTH)
        page = opened.page
        page.wait_for_selector("#sessions tr.session, #usage-days tr.total")
        assert _scrolls_across(opened) == 0
        if path.startswith("/?") or path == "/":
            # Titles read left to right, from the left edge of their column.
            aligns = page.eval_on_selector_all(
                "#sessions td.title", "cells => cells.map(c => getComputedStyle(c).textAlign)"
            )
            assert aligns and set(aligns) <= {"left", "start"}
    finally:
        assert server.stop()[0] == 0


def _drawn(opened: Opened, chart: str) -> dict[str, float]:
    opened.page.wait_for_selector(f"#{chart}[data-drawn] canvas")
    return dict(json.loads(opened.page.get_attribute(f"#{chart}", "data-drawn") or "[]"))


def _inked(opened: Opened, chart: str) -> int:
    """How many pixels of the chart's canvas are painted."""
    return int(opened.page.eval_on_selector(f"#{chart} canvas", """canvas => {
        const data = canvas.getContext('2d').getImageData(0, 0, canvas.width, canvas.height).data;
        let painted = 0;
        for (let i = 3; i < data.length; i += 4) if (data[i]) painted++;
        return painted; }"""))  # fmt: skip


@pytest.mark.parametrize("stack", ["project", "model"])
def test_the_usage_chart_draws_the_commands_numbers(
    served: Served, folder: Path, cache: Path, open_page: Callable[..., Opened], stack: str
) -> None:
    asked = {"tz": "Europe/Paris", "until": "2026-11-30", "stack": stack}
    printed = command("usage", str(folder), "--cache", str(cache), "--by", "day",
                      "--tz", "Europe/Paris", "--until", "2026-11-30")  # fmt: skip
    opened = open_page(served, "/usage?" + urllib.parse.urlencode(asked), WIDTH)
    tokens, cost = _drawn(opened, "usage-tokens"), _drawn(opened, "usage-cost")
    days = {row["key"]: row for row in printed["rows"]}
    assert "-" not in days and len(days) > 3
    assert {day: tokens[day] for day in days} == {k: r["tokens"]["total"] for k, r in days.items()}
    assert all(tokens[day] == 0 for day in set(tokens) - set(days))  # days of no usage: empty
    for day, row in days.items():
        assert cost[day] == pytest.approx(row["cost"])
    assert _inked(opened, "usage-tokens") > 1_000 and _inked(opened, "usage-cost") > 1_000
    # The table under the charts is the command's rows and total.
    table = [
        [td.inner_text() for td in tr.query_selector_all("td")]
        for tr in opened.page.query_selector_all("#usage-days tr.day, #usage-days tr.total")
    ]
    expected = [*printed["rows"], printed["total"]]
    assert [cells[0] for cells in table] == [*(row["key"] for row in printed["rows"]), "total"]
    assert [cells[1:8] for cells in table] == [
        [f"{row['sessions']:,}", f"{row['calls']:,}",
         *(f"{row['tokens'][k]:,}" for k in ("input", "output", "cache_read", "cache_write",
                                             "total"))]
        for row in expected
    ]  # fmt: skip
    for cells, row in zip(table, expected, strict=True):
        assert float(cells[8].removeprefix("$").replace(",", "")) == pytest.approx(
            row["cost"], abs=0.006
        )
    # The legend names each layer (a project by the last part of its path).
    labels = opened.page.eval_on_selector_all(
        "#usage-tokens .u-series th", "ths => ths.map(th => th.textContent)"
    )
    layers = opened.page.evaluate("() => document.querySelector('#usage-stack').value")
    assert layers == stack
    if stack == "project":
        assert sorted(labels[1:]) == [f"project-00{n}" for n in range(4)]
        shot(opened, "serve-usage.png")
    else:
        assert {"claude-opus-4-6", "claude-haiku-4-5-20251001"} <= set(labels)


__all__ = ["browser", "cache", "folder", "open_page", "served"]  # the fixtures it shares
