"""The server's list of sessions and its usage are the commands', key for key: ``GET
/api/v1/sessions`` against ``sessions --json`` and ``GET /api/v1/usage`` against ``usage
--json``, with the same filters, on every agent's shared transcripts and on a generated
Claude Code folder of many sessions across projects, days and models.

The server folds each session from its first, last and conversation events only (`kept`);
a test holds that to the commands' fold of every event. Each day's layers (by project or by
model) add up to the day's row, held by a property test.
"""

from __future__ import annotations

import contextlib
import hashlib
import io
import json
import tomllib
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from correx_tools import DefaultToolRepository, EventReplayer, JsonlEventLog, SQLiteEventStore
from correx_tools.core.catalog.activity import Window
from correx_tools.core.catalog.facts import SessionFacts
from correx_tools.core.catalog.listing import CallCounts, Listed, SessionQuery
from correx_tools.core.catalog.stacks import MOST, OTHER, STACKS, stacked
from correx_tools.core.catalog.usage import usage_rows
from correx_tools.core.lifecycle.conversation import TokenUsage
from correx_tools.core.lifecycle.description import About, Described
from correx_tools.core.replay.pricing import Price, PriceTable
from correx_tools.core.tools.ids import SessionId
from correx_tools.shell.catalog.folded import FoldedCatalog
from correx_tools.shell.cli.main import main
from correx_tools.shell.serve.debugger.kept import fold_on

from .serving import ROOT, Served
from .strategies import completed, requested, started, stored
from .test_many_sessions import folder

DATA = Path(__file__).parent / "data" / "transcripts"
PAGE = ROOT / "correx_tools" / "shell" / "serve" / "page"
SEARCH_KEYS = {"session_ref", "invocation_ref"}
"""What the server's hits add to the search command's, for the page to name them by."""
SERVER_KEYS = {"ref", "damaged"}
"""What the server's rows add to the command's: the ref the page names a session by, and
why a damaged session has no counts."""


def command(*argv: str) -> Any:
    """What the command prints with ``--json``, run in this process."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        try:
            status = main([*argv, "--json"])
        except SystemExit as leaving:
            status = int(leaving.code or 0)
    assert status in (0, 1), out.getvalue()
    return json.loads(out.getvalue())


@pytest.fixture(scope="module")
def cache(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return tmp_path_factory.mktemp("cache") / "command.sqlite"


@pytest.fixture(scope="module")
def served(folder: Path, tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    # Named as a person names it, from where it lies (a screenshot shows the source).
    cache = tmp_path_factory.mktemp("serve") / "s.sqlite"
    server = Served(folder.name, "--cache", str(cache), cwd=folder.parent)
    yield server
    assert server.stop()[0] == 0


@pytest.fixture(scope="module")
def shared(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Served]:
    server = Served(DATA, "--lenient", "--cache", str(tmp_path_factory.mktemp("s") / "s.sqlite"))
    yield server
    assert server.stop()[0] == 0


def _same_rows(answer: dict[str, Any], printed: dict[str, Any]) -> None:
    """The API's rows are the command's, in its order, key for key."""
    assert answer["total"] == printed["total"]
    rows, expected = answer["sessions"], printed["sessions"]
    assert [r["session_id"] for r in rows] == [r["session_id"] for r in expected]
    for row, want in zip(rows, expected, strict=True):
        assert set(row) - set(want) == SERVER_KEYS
        assert {key: row[key] for key in want} == want
        assert row["damaged"] is None


def test_the_list_is_the_commands_on_every_agents_transcripts(
    shared: Served, tmp_path: Path
) -> None:
    printed = command("sessions", str(DATA), "--cache", str(tmp_path / "c.sqlite"), "--limit", "0")
    assert printed["total"] >= 12
    answer = shared.answer("/api/v1/sessions", limit=1000)
    _same_rows(answer, printed)
    # Unpriced models say so, never $0; and each row has its short id, as the table's.
    assert any(r["cost"] is None and r["unpriced_models"] for r in answer["sessions"])
    for row in answer["sessions"]:
        short = answer["short_ids"][row["ref"]]
        assert row["session_id"].startswith(short) and len(short) >= min(8, len(row["ref"]))


FILTERS: list[dict[str, str]] = [
    {},
    {"project": "PROJECT-001"},
    {"model": "opus", "failed": "1"},
    {"agent": "claude-code", "since": "2026-11-27", "until": "2026-11-29", "tz": "UTC"},
    {"since": "2026-11-28T06:00", "tz": "Asia/Kolkata"},
    {"until": "20261125", "tz": "America/New_York"},
    {"agent": "codex"},
    {"machine": "elsewhere"},
]


@pytest.mark.parametrize("asked", FILTERS, ids=lambda asked: "&".join(asked) or "none")
def test_each_filter_picks_what_the_commands_picks(
    served: Served, folder: Path, cache: Path, asked: dict[str, str]
) -> None:
    options = [f"--{k}" if k == "failed" else f"--{k}={v}" for k, v in asked.items()]
    printed = command("sessions", str(folder), "--cache", str(cache), "--limit", "0", *options)
    answer = served.answer("/api/v1/sessions", limit=1000, **asked)
    _same_rows(answer, printed)
    paged = served.answer("/api/v1/sessions", limit=5, offset=5, **asked)
    assert paged["sessions"] == answer["sessions"][5:10] and paged["total"] == answer["total"]


@pytest.mark.parametrize("by", ["day", "week", "model", "project", "block"])
def test_usage_is_the_commands(served: Served, folder: Path, cache: Path, by: str) -> None:
    for asked in ({"tz": "UTC"}, {"tz": "Europe/Paris", "project": "002", "since": "2026-11-26"}):
        options = [f"--{k}={v}" for k, v in asked.items()]
        printed = command("usage", str(folder), "--cache", str(cache), "--by", by, *options)
        answer = served.answer("/api/v1/usage", by=by, **asked)
        assert (answer["rows"], answer["total"], answer["by"]) == (
            printed["rows"], printed["total"], printed["by"],
        )  # fmt: skip
        assert answer["rows"]


@pytest.mark.parametrize("stack", ["project", "model"])
def test_each_days_layers_add_up_to_its_row(served: Served, stack: str) -> None:
    answer = served.answer("/api/v1/usage", tz="UTC", stack=stack)
    assert answer["stack"] == stack and len(answer["layers"]) > 1
    for row in answer["rows"]:
        days = [d for layer in answer["layers"] for d in layer["days"] if d["key"] == row["key"]]
        assert sum(d["tokens"]["total"] for d in days) == row["tokens"]["total"]
        assert sum(d["cost"] for d in days) == pytest.approx(row["cost"])


@pytest.mark.parametrize(
    ("path", "asked", "said"),
    [
        ("/api/v1/sessions", {"since": "yesterday"}, "since='yesterday': not a date or a time; "
         "give a date (2026-12-01 or 20261201)"),
        ("/api/v1/sessions", {"until": "2026-13-01"}, "until='2026-13-01': not a date"),
        ("/api/v1/usage", {"tz": "Mars/Base"}, "tz='Mars/Base': no such time zone; give a name"),
        ("/api/v1/sessions", {"failed": "maybe"}, "failed='maybe' is not one of 1, 0"),
        ("/api/v1/usage", {"by": "session"}, "by='session' is not one of day, week, month"),
        ("/api/v1/usage", {"stack": "tool"}, "stack='tool' is not one of project, model, machine"),
        ("/api/v1/sessions", {"sort": "price"}, "sort='price' is not one of recent, -recent"),
        ("/api/v1/hits", {"q": "x", "in": "tools"}, "in='tools' is not one of all, arguments"),
    ],
)  # fmt: skip
def test_bad_input_is_one_line_naming_what_is_accepted(
    served: Served, path: str, asked: dict[str, str], said: str
) -> None:
    status, body, _ = served.get(path, asked)
    assert status == 400 and said in body["error"], body
    assert "\n" not in body["error"]


def test_a_filter_that_picks_nothing_is_an_empty_list(served: Served) -> None:
    answer = served.answer("/api/v1/sessions", agent="aider")
    assert (answer["total"], answer["sessions"]) == (0, [])
    usage = served.answer("/api/v1/usage", agent="aider")
    assert usage["rows"] == [] and usage["total"]["sessions"] == 0 and usage["layers"] == []


def test_the_server_folds_each_session_as_the_commands_do(tmp_path: Path) -> None:
    cache = tmp_path / "c.sqlite"
    command("sessions", str(DATA), "--cache", str(cache), "--limit", "0")
    store = SQLiteEventStore(cache, read_only=True)
    try:
        repository = DefaultToolRepository(EventReplayer(store), strict=False)
        everything, total = FoldedCatalog(store, repository).listed(SessionQuery())
        assert total >= 12
        for listed in everything:
            session = SessionId(listed.session_id)
            last = repository.last_sequence(session)
            kept = fold_on(store, repository, session, last, None)
            assert kept.listed == listed, session
            # Moved on from part way: the same facts as folded at once.
            half = fold_on(store, repository, session, last // 2, None)
            assert fold_on(store, repository, session, last, half).listed == listed, session
    finally:
        store.close()


# -- a search of every session, through the full-text index ----------------------------------------


def test_the_pages_search_is_the_search_commands(served: Served, folder: Path, cache: Path) -> None:
    for asked in ({"q": "auth"}, {"q": '"hang on start"', "in": "said"},
                  {"q": "Read src", "in": "arguments", "project": "project-002"}):  # fmt: skip
        options = [f"--{k}={v}" for k, v in asked.items() if k != "q"]
        printed = command("search", str(folder), asked["q"], "--cache", str(cache), "--limit",
                          "0", *options)  # fmt: skip
        answer = served.answer("/api/v1/hits", limit=200, **asked)
        assert answer["index"] is True and answer["more"] is False and printed["hits"], asked
        # Key for key, but the command that opens it (the page's own link opens it here).
        assert [{k: v for k, v in h.items() if k not in SEARCH_KEYS} for h in answer["hits"]] == [
            {k: v for k, v in h.items() if k != "open"} for h in printed["hits"]
        ]  # fmt: skip
        assert all(set(h) >= SEARCH_KEYS for h in answer["hits"])
    # Paged: the pages add up to the whole, and the last says there is no more.
    whole = served.answer("/api/v1/hits", q="auth", limit=200)["hits"]
    pages, offset = [], 0
    while True:
        page = served.answer("/api/v1/hits", q="auth", limit=7, offset=offset)
        pages += page["hits"]
        offset += 7
        if not page["more"]:
            break
    assert pages == whole and len(whole) > 7
    # The filters pick the sessions searched, as they pick the list.
    project = {r["session_id"] for r in served.answer(
        "/api/v1/sessions", project="project-001", limit=1000)["sessions"]}  # fmt: skip
    picked = served.answer("/api/v1/hits", q="auth", project="project-001", limit=200)["hits"]
    assert picked and {h["session_id"] for h in picked} <= project


def test_a_store_without_an_index_is_searched_by_reading_it(tmp_path: Path) -> None:
    log = tmp_path / "s.jsonl"
    events = [requested("c-1", note="deploy the parser"), started("c-1"), completed("c-1")]
    JsonlEventLog(log).import_events(stored(events, session="logged")).unwrap()
    server = Served(log)
    try:
        answer = server.answer("/api/v1/hits", q="parser")
        assert answer["index"] is False
        assert [(h["session_id"], h["field"]) for h in answer["hits"]] == [("logged", "arguments")]
        assert server.answer("/api/v1/sessions")["search_index"] is False
    finally:
        assert server.stop()[0] == 0


# -- the layers of a day, by the rules ------------------------------------------------------------

PRICES = PriceTable(models={"a": Price(input=1, output=2, cache_read=0, cache_write=0)})


def _listed(number: int, project: str | None) -> Listed:
    about = About(cwd=project)
    described = None if project is None else Described(format="claude-code", about=about)
    facts = SessionFacts(description=described)
    # A team's store names the machine and the user: some sessions here, by their number.
    machine, user = (None, None) if number % 3 == 0 else (f"m{number % 2}", f"u{number % 4}")
    return Listed(session_id=f"s{number}", facts=facts, counts=CallCounts(), machine=machine,
                  user=user)  # fmt: skip


def _window(calls: int, messages: int, tokens: int) -> Window:
    spent = TokenUsage(input=tokens * messages, output=3) if messages else TokenUsage()
    return Window(calls=calls, messages=messages, tokens=spent)


_entry = st.tuples(
    st.builds(_listed, st.integers(0, 5), st.sampled_from([None, "/p/one", "/p/two", "/q/one"])),
    st.one_of(st.none(), st.integers(1_900_000, 1_900_400)),
    st.sampled_from([None, "a", "b", "c"]),
    st.builds(_window, st.integers(0, 3), st.integers(0, 2), st.integers(0, 10_000)),
)


@settings(max_examples=150, deadline=None)
@given(st.lists(_entry, max_size=40), st.sampled_from(STACKS), st.integers(1, 4))
def test_a_days_layers_add_up_to_the_days_row(entries: list[Any], stack: Any, most: int) -> None:
    rows, _ = usage_rows(entries, "day", local=lambda t: t, prices=PRICES)
    layers = stacked(entries, stack, local=lambda t: t, prices=PRICES, most=most)
    assert len(layers) <= max(most, 1)
    assert all(layer.rest == () for layer in layers if layer.key != OTHER)
    for row in rows:
        days = [r for layer in layers for r in layer.rows if r.key == row.key]
        assert sum(r.tokens.total for r in days) == row.tokens.total
        priced = [r.cost for r in days if r.cost is not None]
        assert (sum(priced) if priced else None) == row.cost
    assert MOST >= 2


# -- the chart library, shipped in the package -----------------------------------------------------


def test_the_vendored_chart_library_is_in_the_packages_data() -> None:
    vendor = PAGE / "vendor"
    shipped = sorted(p.name for p in vendor.iterdir())
    assert shipped == ["PROVENANCE.md", "uPlot.LICENSE", "uPlot.iife.min.js", "uPlot.min.css"]
    patterns = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["tool"][
        "setuptools"]["package-data"]["correx_tools"]  # fmt: skip
    package = ROOT / "correx_tools"
    matched = {p for pattern in patterns for p in package.glob(pattern) if p.is_file()}
    assert {p for p in PAGE.rglob("*") if p.is_file()} <= matched
    # The note says where each file came from, and the digests of the files as shipped.
    note = (vendor / "PROVENANCE.md").read_text(encoding="utf-8")
    assert "1.6.32" in note and "MIT" in note and "npm" in note
    for name in ("uPlot.iife.min.js", "uPlot.min.css"):
        digest = hashlib.sha256((vendor / name).read_bytes()).hexdigest()
        assert f"{digest}  {name}" in note
    assert (
        (vendor / "uPlot.iife.min.js")
        .read_text(encoding="utf-8")
        .startswith("/*! https://github.com/leeoniya/uPlot (v1.6.32) */")
    )
    assert "Permission is hereby granted" in (vendor / "uPlot.LICENSE").read_text(encoding="utf-8")


def test_the_server_serves_the_library_under_its_own_policy(served: Served) -> None:
    status, _, headers = served.get("/static/uPlot.iife.min.js", token=False)
    assert status == 200 and headers["content-type"].startswith("application/javascript")
    assert "script-src 'self';" in headers["content-security-policy"]
    status, _, _ = served.get("/usage", token=False)
    assert status == 200


__all__ = ["folder"]  # the generated folder of many sessions, shared
