"""``serve postgresql://…`` as the team's page: each session's machine and user, the list and
the usage picked by them, and each day's usage stacked by person, as ``usage --json`` adds it
up; the page in Chromium with the user's filter and the chart by person (issue 56)."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator

import pytest

from .browsing import Opened, module_browser
from .commands import correx
from .serving import Served
from .teams import TWO_MACHINES, two_machines_pushed
from .test_serve_page import open_page

pytest.importorskip("psycopg")
browser = module_browser()


@pytest.fixture(scope="module")
def served(postgres_dsn: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    with two_machines_pushed(postgres_dsn, tmp_path_factory.mktemp("machines")) as url:
        server = Served(url)
        try:
            yield server
        finally:
            server.stop()


def usage(served: Served, *args: str) -> dict[str, object]:
    ran = correx("usage", served.document["source"], "--tz", "UTC", "--json", *args, check=True)
    answer: dict[str, object] = json.loads(ran.stdout)
    return answer


def test_the_list_shows_and_picks_by_machine_and_user(served: Served) -> None:
    every = served.answer("/api/v1/sessions")["sessions"]
    assert {(r["session_id"].split("/")[0], r["machine"], r["user"]) for r in every} == {
        (machine, machine, user) for machine, user in TWO_MACHINES
    }
    for machine, user in TWO_MACHINES:
        for picked in (served.answer("/api/v1/sessions", machine=machine),
                       served.answer("/api/v1/sessions", user=user, sort="-events")):  # fmt: skip
            rows = picked["sessions"]
            assert picked["total"] == len(rows) == 2
            assert {(r["machine"], r["user"]) for r in rows} == {(machine, user)}
    assert served.answer("/api/v1/sessions", machine="laptop", user="bob")["total"] == 0


def test_usage_by_person_is_the_commands_and_its_layers_add_up(served: Served) -> None:
    for by in ("user", "machine", "day"):
        page = served.answer("/api/v1/usage", by=by, tz="UTC")
        command = usage(served, "--by", by)
        assert page["rows"] == command["rows"] and page["total"] == command["total"]
    anna = served.answer("/api/v1/usage", by="user", user="anna", tz="UTC")
    assert anna["rows"] == usage(served, "--by", "user", "--user", "anna")["rows"]
    assert [row["key"] for row in anna["rows"]] == ["anna"]
    by_person = served.answer("/api/v1/usage", stack="user", tz="UTC")
    assert {layer["key"] for layer in by_person["layers"]} == {"anna", "bob"}
    for row in by_person["rows"]:
        days = [d for layer in by_person["layers"] for d in layer["days"] if d["key"] == row["key"]]
        assert sum(d["tokens"]["total"] for d in days) == row["tokens"]["total"] > 0


def test_the_page_picks_by_user_and_stacks_usage_by_person(
    served: Served, open_page: Callable[..., Opened]
) -> None:
    opened = open_page(served, "/?user=bob&tz=UTC")
    opened.page.wait_for_selector("#sessions[data-total='2']")
    assert opened.page.input_value("#f-user") == "bob"
    links = opened.page.query_selector_all("#sessions tr.session a")
    shown = [a.get_attribute("title") or "" for a in links]
    assert len(shown) == 2 and all(title.startswith("desk/") for title in shown), shown
    chart = open_page(served, "/usage?stack=user&tz=UTC")
    chart.page.wait_for_selector("#usage-tokens[data-drawn] canvas")
    assert chart.page.evaluate("() => document.querySelector('#usage-stack').value") == "user"
    labels = chart.page.eval_on_selector_all(
        "#usage-tokens .u-series th", "ths => ths.map(th => th.textContent)"
    )
    assert {"anna", "bob"} <= set(labels)


__all__ = ["browser", "open_page"]  # the fixtures it shares
