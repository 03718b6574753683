"""The audit in the debugger: ``/api/v1/audit``, the findings panel, a live finding.

A real ``correx-tools serve`` over SQLite stores; the page in the distribution's Chromium.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from correx_tools import (
    InvocationId,
    SessionId,
    SessionRecorder,
    SQLiteEventStore,
    Tier,
    ToolRequest,
)
from correx_tools.shell.audit import live
from correx_tools.shell.audit.policy_file import read_policy

from .browsing import Opened, module_browser
from .commands import correx
from .serving import Served

playwright = pytest.importorskip("playwright.sync_api")

CORPUS = Path(__file__).parent / "data" / "audit"
browser = module_browser()


@pytest.fixture(scope="module")
def corpus_store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    store = tmp_path_factory.mktemp("audit-serve") / "corpus.sqlite"
    for name in ("denied_commands", "flow_shell", "clean"):
        correx("import-transcript", str(CORPUS / f"{name}.jsonl"), str(store), check=True)
    return store


@pytest.fixture
def open_page(browser: Any) -> Iterator[Callable[..., Opened]]:
    pages: list[Opened] = []

    def opener(server: Served, path: str) -> Opened:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        opened = Opened(page)
        page.goto(server.link(path))
        page.wait_for_selector("body[data-ready]", timeout=30_000)
        pages.append(opened)
        return opened

    yield opener
    for opened in pages:
        assert opened.errors == []
        opened.page.close()


def test_the_api_answers_the_audit_of_a_session(corpus_store: Path) -> None:
    server = Served(corpus_store)
    try:
        said = server.answer("/api/v1/audit", session="audit-denied_commands")
        assert [(f["sequence"], f["rule"]) for f in said["findings"]] == [
            (3, "write-outside-workspace"), (3, "command-denied"), (6, "command-denied"),
            (9, "command-denied"), (12, "command-denied"),
        ]  # fmt: skip
        assert said["through"] == 14  # the description, a prompt, four calls of three events
        assert server.answer("/api/v1/audit", session="audit-clean")["findings"] == []
        status, body, _ = server.get("/api/v1/audit")
        assert status == 400 and "session" in body["error"]
        status, body, _ = server.get("/api/v1/audit", {"session": "nobody"})
        assert status == 404
    finally:
        assert server.stop()[0] == 0


def test_the_audit_masks_what_the_servers_own_redact_patterns_mask(corpus_store: Path) -> None:
    # `serve --redact` masks a pattern in every answer; a finding quotes the command it is
    # about, so it must be masked by the same patterns, not by the policy's alone.
    server = Served(corpus_store, "--redact", "origin main")
    try:
        said = server.answer("/api/v1/audit", session="audit-denied_commands")
        messages = [f["message"] for f in said["findings"]]
        assert any("git push --force" in m for m in messages), messages
        assert not any("origin main" in m for m in messages), messages
    finally:
        assert server.stop()[0] == 0


def test_the_audit_names_a_session_whose_id_looks_like_a_secret_masked(tmp_path: Path) -> None:
    # A session's id is the transcript's to choose; one the redaction masks is shown
    # masked in every answer, and named by its ref.
    secret = "ghp_0123456789abcdefghijABCDEFGHIJ012345"
    transcript = tmp_path / "t.jsonl"
    text = (CORPUS / "denied_commands.jsonl").read_text("utf-8")
    transcript.write_text(text.replace("audit-denied_commands", secret), "utf-8")
    store = tmp_path / "s.sqlite"
    correx("import-transcript", str(transcript), str(store), check=True)
    server = Served(store)
    try:
        (row,) = server.answer("/api/v1/sessions")["sessions"]
        said = server.answer("/api/v1/audit", session=row["ref"])
        assert said["findings"] and secret not in json.dumps(said)
        assert said["session"] == row["session_id"]
    finally:
        assert server.stop()[0] == 0


def test_the_findings_panel_links_each_finding_to_its_event(
    corpus_store: Path, open_page: Callable[..., Opened]
) -> None:
    server = Served(corpus_store)
    try:
        page = open_page(server, "/sessions/audit-flow_shell").page
        page.wait_for_selector("#audit tr td")
        rows = page.query_selector_all("#audit tr:has(td)")
        assert len(rows) == 1
        cells = [cell.inner_text() for cell in rows[0].query_selector_all("td")]
        assert cells[:4] == ["6", "error", "flow-into-shell", "Bash"]
        assert "came out of WebFetch (sequence 5)" in cells[4]
        assert "1 finding" in page.inner_text("#audit-summary")
        link = rows[0].query_selector("a.seq")
        assert link is not None and "at=6" in (link.get_attribute("href") or "")
        link.click()
        page.wait_for_function(
            "() => document.querySelector('[data-testid=sequence]').textContent === '6'"
        )
        assert "at=6" in page.url
    finally:
        assert server.stop()[0] == 0


def test_a_finding_in_a_session_written_live_shows_within_two_seconds(
    tmp_path: Path, open_page: Callable[..., Opened]
) -> None:
    path = tmp_path / "live.sqlite"
    store = SQLiteEventStore(path)
    recorder = SessionRecorder(store, SessionId("live"))

    def call(name: str, command: str) -> None:
        request = ToolRequest(tool_name="Bash", arguments={"command": command})
        recorder.request(InvocationId(name), request, tier=Tier.AUTO).unwrap()

    call("a", "ls")
    server = Served(path)
    try:
        page = open_page(server, "/sessions/live").page
        page.wait_for_function(
            "() => document.querySelector('#audit-summary').textContent.startsWith('no finding')"
        )
        call("b", "git push --force <img src=x onerror=alert(1)>")
        # Pushed live: the page is never reloaded (how soon is not timed on a shared machine).
        page.wait_for_selector("#audit tr td", timeout=20_000)
        cell = page.query_selector_all("#audit tr:has(td) td")[4]
        assert "<img src=x onerror=alert(1)>" in cell.inner_text()  # text, never markup
        assert page.query_selector("#audit img") is None
    finally:
        store.close()
        assert server.stop()[0] == 0


def test_the_panel_holds_sessions_to_the_policy_given(corpus_store: Path, tmp_path: Path) -> None:
    # A reviewed policy that allows forced pushes and writes anywhere: the same session
    # that the built-in policy finds five things in is clean by this one.
    policy = tmp_path / "policy.toml"
    policy.write_text("[paths]\nwrites_outside_workspace = false\n[commands]\ndeny = []\n")
    server = Served(corpus_store, "--policy", str(policy))
    try:
        said = server.answer("/api/v1/audit", session="audit-denied_commands")
        assert said["findings"] == [] and said["through"] == 14
    finally:
        assert server.stop()[0] == 0
    policy.write_text("[paths]\nwrites = 1\n")
    refused = correx("serve", str(corpus_store), "--port", "0", "--policy", str(policy))
    assert refused.returncode != 0 and refused.stdout == ""
    assert refused.stderr.strip() == (
        f"correx-tools serve: error: --policy: {policy}: paths.writes: is not a policy key (line 2)"
    )


def test_the_live_audit_keeps_the_sessions_asked_last(
    corpus_store: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(live, "MAX_SESSIONS", 2)
    names = [SessionId(f"audit-{name}") for name in ("denied_commands", "flow_shell", "clean")]
    with SQLiteEventStore(corpus_store, read_only=True) as store:
        audits = live.LiveAudits(store, read_policy(None))
        first = [audits.audit(name) for name in names]
        assert list(audits._sessions) == names[1:]  # the least recently asked let go
        assert audits.audit(names[0]) == first[0]  # audited again from the start
        assert list(audits._sessions) == [names[2], names[0]]
    assert first[0]["findings"] and first[1]["findings"] and not first[2]["findings"]
