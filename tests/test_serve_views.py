"""Views per tool, subagent links and the search over every session, in Chromium.

A real ``correx-tools serve`` over a folder laid out as agents lay theirs out
(Claude Code's session and its subagent's file, a Codex rollout, a hostile
session written here); the page is driven in Chromium and what it shows is
held to the transcripts: the text an edit replaced, the command a shell call
ran and its exit code, the subagent's session and the call that started it,
each hit of a search a link to its session at its sequence.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

from .browsing import Opened, module_browser
from .commands import correx
from .recorded_samples import FIND, LS, READ, exited_and_cut
from .serving import ROOT, Served
from .transcript_samples import DATA

playwright = pytest.importorskip("playwright.sync_api")
browser = module_browser()

PARENT = "4d5611e5-241a-462a-8d15-5122611a9569"
CHILD = f"{PARENT}/agent-a2898e3"
TASK = f"{PARENT}/toolu_017pLRuPHYTX5t99EnLyV53m"
CODEX = "019a95d1-3c7e-7b22-a4f0-6e1d2c9b8a53"
SWE = "swe-agent/marshmallow-1867_function_calling"
"""Named by its place in the folder (a trajectory records no id of its own)."""
OPENCODE = "ses_4f8e21c07ffdR2kLq9mT3xYb7w"
PONY = "ponylang__ponyc-4595"
SECRET = "sk-ant-api03-" + "Q" * 40
HOSTILE = '<img src=x onerror="document.title=1">\u202edlrow'


def hostile_session(path: Path) -> Path:
    """A Claude Code session whose edit plants a secret and whose command is markup."""
    base = {"sessionId": "hostile", "cwd": "/w", "version": "2.1.39", "uuid": "u"}

    def record(kind: str, at: str, content: list[dict[str, Any]]) -> str:
        message = {"role": "assistant" if kind == "assistant" else "user", "content": content}
        return json.dumps({**base, "type": kind, "timestamp": at, "message": message})

    lines = [
        record("assistant", "2026-01-01T00:00:00Z", [{"type": "tool_use", "id": "t1",
               "name": "Edit", "input": {"file_path": "/w/.env", "old_string": "KEY=\n",
                                         "new_string": f"KEY={SECRET}\n"}}]),
        record("user", "2026-01-01T00:00:01Z", [{"type": "tool_result", "tool_use_id": "t1",
               "content": "ok"}]),
        record("assistant", "2026-01-01T00:00:02Z", [{"type": "tool_use", "id": "t2",
               "name": "Bash", "input": {"command": f"echo '{HOSTILE}'"}}]),
        record("user", "2026-01-01T00:00:03Z", [{"type": "tool_result", "tool_use_id": "t2",
               "content": HOSTILE}]),
    ]  # fmt: skip
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    return path


@pytest.fixture(scope="module")
def folder(tmp_path_factory: pytest.TempPathFactory) -> Path:
    root = tmp_path_factory.mktemp("views") / "agents"
    project = root / "claude" / "-home-me-spotter"
    (project / PARENT / "subagents").mkdir(parents=True)
    shutil.copy(DATA.parent / "subagents" / f"{PARENT}.jsonl", project / f"{PARENT}.jsonl")
    # The subagent's file as Claude Code writes a command that exited 1 and an output too
    # large to store (`recorded_samples`); the rest of it is the sample's.
    exited_and_cut(project / PARENT / "subagents" / "agent-a2898e3.jsonl")
    codex = next((DATA / "codex").glob("rollout-*.jsonl"))
    (root / "codex").mkdir()
    shutil.copy(codex, root / "codex" / codex.name)
    for agent, name in (("swe-agent", "marshmallow-1867_function_calling.traj"),
                        ("opencode", f"{OPENCODE}.json"),
                        ("openhands", f"multi_swe_bench_{PONY}.json")):  # fmt: skip
        (root / agent).mkdir()
        shutil.copy(DATA / agent / name, root / agent / name)
    hostile_session(project / "hostile.jsonl")
    # Two transcripts that record no time for their steps: Aider's history, bare MCP traffic.
    (root / "aider").mkdir()
    shutil.copy(DATA / "aider" / "real" / "hello-world-flask.md",
                root / "aider" / ".aider.chat.history.md")  # fmt: skip
    shutil.copy(DATA / "mcp" / "traffic-bare.jsonl", root / "traffic-bare.jsonl")
    return root


@pytest.fixture(scope="module")
def served(folder: Path) -> Iterator[Served]:
    # The tests name points by sequence: the sessions without their conversation.
    server = Served(folder, "--no-cache", "--no-conversation")
    yield server
    server.stop()


@pytest.fixture
def open_page(browser: Any, served: Served) -> Iterator[Callable[[str], Opened]]:
    pages: list[Opened] = []

    def opener(path: str) -> Opened:
        page = browser.new_page(viewport={"width": 1400, "height": 1000})
        opened = Opened(page)
        page.goto(served.link(path))
        page.wait_for_selector("body[data-ready]", timeout=30_000)
        pages.append(opened)
        return opened

    yield opener
    for opened in pages:
        assert opened.errors == []
        assert all(url.startswith(served.base) for url in opened.requests), opened.requests
        opened.page.close()


def at(session: str, invocation: str) -> str:
    return f"/sessions/{quote(session, safe='')}?invocation={quote(invocation, safe='')}"


def found(served: Served, **query: str) -> list[dict[str, Any]]:
    return served.every_match("/api/v1/search", **query)


def test_an_edit_shows_the_text_it_replaced_as_a_diff(
    served: Served, open_page: Callable[[str], Opened]
) -> None:
    patch = next(
        m
        for m in found(served, q="Update File", tool="apply_patch", status="completed")
        if m["session_id"] == CODEX
    )
    page = open_page(at(CODEX, patch["ref"])).page
    diff = page.wait_for_selector("[data-testid=edit-diff]", timeout=10_000)
    assert "src/greek.rs" in diff.inner_text()
    removed = [e.inner_text() for e in diff.query_selector_all(".diff-del")]
    added = [e.inner_text() for e in diff.query_selector_all(".diff-add")]
    assert removed == ["-        'η' | 'Η' => \"i\".into(),"]  # noqa: RUF001 - Greek eta
    assert added == ["+        'η' | 'Η' | 'ή' | 'Ή' => \"i\".into(),"]  # noqa: RUF001


def test_a_shell_call_shows_its_command_its_output_and_its_exit_code(
    served: Served, open_page: Callable[[str], Opened]
) -> None:
    make = next(
        m
        for m in found(served, q="make test", tool="shell_command", status="completed")
        if m["session_id"] == CODEX
        and "Exit code: 2" in json.dumps(served.answer(
            f"/api/v1/sessions/{CODEX}/invocations/{quote(m['ref'], safe='')}/history"))
    )  # fmt: skip
    page = open_page(at(CODEX, make["ref"])).page
    shell = page.wait_for_selector("[data-testid=shell-output]", timeout=10_000)
    assert shell.query_selector(".shell-command").inner_text() == "$ make test"
    assert "FAILED" in shell.query_selector("pre.terminal").inner_text()
    assert shell.query_selector(".exit-code").inner_text() == "exit 2"


def test_a_subagent_is_linked_both_ways_from_the_call_that_started_it(
    open_page: Callable[[str], Opened],
) -> None:
    page = open_page(at(PARENT, TASK)).page
    forward = page.wait_for_selector("#tool-view [data-testid=subagent-link]", timeout=10_000)
    assert forward.inner_text() == CHILD
    forward.click()
    page.wait_for_url(f"**/sessions/{quote(CHILD, safe='')}*", timeout=10_000)
    back = page.wait_for_selector("#family [data-testid=subagent-link]", timeout=10_000)
    assert back.inner_text() == f"call {TASK.removeprefix(PARENT + '/')}"  # as the command says
    assert back.get_attribute("title") == TASK
    back.click()
    page.wait_for_selector(f"#invocation[data-invocation='{TASK}']", timeout=10_000)
    assert "at=16" in page.url  # the sequence at which the Task ended
    children = page.wait_for_selector("#family [data-testid=subagent-link]", timeout=10_000)
    assert children.inner_text() == CHILD


def test_search_runs_across_every_session_and_each_hit_opens_where_it_is(
    served: Served, open_page: Callable[[str], Opened]
) -> None:
    opened = open_page("/")
    page = opened.page
    page.fill("#everywhere-text", "spotter")
    page.click("#everywhere-run")
    # A text alone: through the store's full-text index, the API's hits in its order.
    api = served.answer("/api/v1/hits", q="spotter", limit=50)["hits"]
    assert api and all(h["invocation_id"] for h in api)  # no conversation kept here
    page.wait_for_selector(f"#everywhere-results[data-found='{len(api)}']", timeout=10_000)
    assert "through the full-text index" in page.inner_text("#everywhere-summary")
    hits = page.query_selector_all("#everywhere-results tr.hit-row")
    assert {PARENT, CHILD} <= {hit.query_selector("td").inner_text() for hit in hits}
    links = [hit.query_selector("[data-testid=search-hit]") for hit in hits]
    assert [a.get_attribute("href") for a in links] == [h["page"] for h in api]
    calls = [hit.query_selector_all("td")[3].query_selector("span") for hit in hits]
    assert [(c.inner_text(), c.get_attribute("title")) for c in calls] == [
        (h["invocation_id"].removeprefix(h["session_id"] + "/"), h["invocation_id"]) for h in api
    ]  # as the command names them, the whole id on hover
    assert "search=spotter" in page.url  # a link opens the results again
    again = open_page("/?" + page.url.split("?", 1)[1]).page
    again.wait_for_selector(f"#everywhere-results[data-found='{len(api)}']", timeout=10_000)
    links[0].click()
    page.wait_for_selector("#invocation[data-invocation]", timeout=10_000)
    assert page.get_attribute("#invocation", "data-invocation") == api[0]["invocation_id"]
    assert page.inner_text("[data-testid=sequence]") == str(api[0]["sequence"])
    page.go_back()  # Back: the search, as it was
    page.wait_for_selector(f"#everywhere-results[data-found='{len(api)}']", timeout=10_000)
    # A tool or a status is searched call by call, as a session's own search does.
    scanned = found(served, q="spotter", tool="Bash")
    page.fill("#everywhere-tool", "Bash")
    page.click("#everywhere-run")
    page.wait_for_selector(f"#everywhere-results[data-found='{len(scanned)}']", timeout=10_000)
    names = [a.get_attribute("title") for a in page.query_selector_all("#everywhere-results a.hit")]
    assert names == [m["invocation_id"] for m in scanned] and "tool=Bash" in page.url


def test_a_search_across_sessions_is_paged_and_the_pages_add_up(served: Served) -> None:
    everything = found(served, tool="Bash", limit="200")
    pages, after = [], ""
    while True:
        answer = served.answer("/api/v1/search", tool="Bash", limit=3, after=after)
        pages += answer["matches"]
        if answer["next"] is None:
            break
        after = answer["next"]
    assert [(m["session_id"], m["ref"]) for m in pages] == [
        (m["session_id"], m["ref"]) for m in everything
    ]
    assert {m["session_id"] for m in everything} >= {CHILD, "hostile"}


def test_a_search_across_sessions_refuses_what_it_cannot_mean(served: Served) -> None:
    for params in ({"status": "bogus"}, {"after": "-1:0"}, {"after": "99:0"},
                   {"after": "٣:0"}, {"after": "0:-5"}):  # fmt: skip
        status, body, _ = served.get("/api/v1/search", params)
        assert status == 400, (params, body)
    assert served.get("/api/v1/search", {"status": "failed"})[0] == 200


def test_what_a_transcript_holds_is_text_and_its_secrets_are_masked(
    open_page: Callable[[str], Opened],
) -> None:
    opened = open_page(at("hostile", "hostile/t1"))
    diff = opened.page.wait_for_selector("[data-testid=edit-diff]", timeout=10_000)
    assert SECRET not in diff.inner_text() and "KEY=" in diff.inner_text()
    opened.page.goto(opened.page.url.replace("hostile%2Ft1", "hostile%2Ft2"))
    shell = opened.page.wait_for_selector("[data-testid=shell-output]", timeout=10_000)
    assert shell.query_selector("img") is None
    assert "[U+202E]" in shell.inner_text() and "onerror" in shell.inner_text()
    assert opened.page.title() != "1"


def test_the_report_shows_the_same_views(tmp_path: Path, browser: Any) -> None:
    codex = next((DATA / "codex").glob("rollout-*.jsonl"))
    out = tmp_path / "page.html"
    correx("report", str(codex), CODEX, "-o", str(out), "--no-cache", check=True, cwd=ROOT)
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    opened = Opened(page)
    page.goto(out.as_uri())
    shells, edits, words = [], 0, []
    for failure in page.query_selector_all("tr.failure"):  # failed, rejected, exited non-zero
        failure.click()
        shells += [e.inner_text() for e in page.query_selector_all("#invocation .shell-command")]
        edits += len(page.query_selector_all("#invocation [data-testid=edit-diff]"))
        words += [e.inner_text() for e in page.query_selector_all("[data-testid=edit-not-applied]")]
    assert "$ cargo bench --bench throughput" in shells  # it failed: why, in its terminal
    assert "$ make test" in shells  # it exited 2: a failure too
    # The patch that failed to apply changed nothing: it says so, and shows no diff.
    assert edits == 0 and len(words) == 1 and "the edit failed" in words[0]
    assert "apply_patch verification failed" in words[0]
    assert opened.errors == []
    page.close()


def recorded(served: Served, session: str, invocation: str) -> dict[str, Any]:
    """The call's last record, as the server sends it (masked, whole)."""
    path = f"/api/v1/sessions/{quote(session, safe='')}/invocations/{quote(invocation, safe='')}"
    record: dict[str, Any] = served.answer(f"{path}/history")["versions"][-1]["record"]
    return record


def numbered(text: str, mark: str) -> list[tuple[int, str]]:
    """The lines an agent numbered with ``mark`` after the number, read here on their own."""
    lines = []
    for line in text.replace("\r\n", "\n").split("\n"):
        number, found, rest = line.lstrip(" ").partition(mark)
        if found and number.isdigit():
            lines.append((int(number), rest))
    return lines


READS = [  # (session, invocation, what follows a line's number, the file)
    (CHILD, "toolu_01HaEX6WGRyK8yccb6knr31H", "→", "lib/spotter_web/live/session_live.ex"),
    (SWE, "call_m6a0mcd6137L21vgVmR0DQaU", ":", "setup.py"),  # "\r\n" between its lines
    (OPENCODE, "toolu_01Oc01Wn4Jd", "| ", "tests/fixtures/ひらがな.txt"),
    (PONY, "toolu_05", "\t", "src/libponyc/ast/parser.c"),  # cat -n
]


@pytest.mark.parametrize("read", READS, ids=["claude-code", "swe-agent", "opencode", "openhands"])
def test_a_file_read_shows_the_files_lines_with_their_numbers(
    served: Served, open_page: Callable[[str], Opened], read: tuple[str, str, str, str]
) -> None:
    session, invocation, mark, path = read
    page = open_page(at(session, invocation)).page
    read = page.wait_for_selector("[data-testid=file-read]", timeout=10_000)
    assert path in read.query_selector(".diff-path").inner_text()
    shown = page.eval_on_selector_all(
        "[data-testid=file-read] .file-line:not(.note)",
        "lines => lines.map(l => [+l.querySelector('.ln').textContent, l.lastChild.textContent])",
    )
    output = recorded(served, session, invocation)["receipt"]["output"]
    assert [tuple(line) for line in shown] == numbered(output, mark) and len(shown) >= 3
    history = page.inner_text("[data-testid=history]")
    escaped = json.dumps(output, ensure_ascii=False)  # the output as JSON shows it: "…\n…"
    escaped = escaped[max(0, escaped.index("\\n") - 20) :][:40]
    assert escaped not in history and '"output"' not in history and "\r" not in read.inner_text()
    raw = page.wait_for_selector("details.raw-json")
    assert raw.get_attribute("open") is None  # the recorded JSON: a click away, not shown twice


def test_an_output_is_text_with_its_line_breaks_and_a_shell_output_is_shown_once(
    served: Served, open_page: Callable[[str], Opened]
) -> None:
    page = open_page(at(SWE, "call_9diWc1DYm4RLmPfHgIaP2wd")).page  # ls -F, in "\r\n"s
    terminal = page.wait_for_selector("pre.terminal", timeout=10_000)
    output = recorded(served, SWE, "call_9diWc1DYm4RLmPfHgIaP2wd")["receipt"]["output"]
    assert "\r\n" in output and terminal.text_content() == output.replace("\r\n", "\n")
    assert page.inner_text("[data-testid=history]").count("CHANGELOG.rst") == 1
    page.click("details.raw-json summary")  # the receipt as recorded, on request
    assert "\\r\\n" in page.inner_text("details.raw-json pre")
    shell = next(
        m for m in found(served, tool="local_shell") if m["session_id"] == CODEX
    )  # Codex writes its output as a JSON string: {"output": "…", "metadata": …}
    page = open_page(at(CODEX, shell["ref"])).page
    terminal = page.wait_for_selector("pre.terminal", timeout=10_000)
    text = json.loads(recorded(served, CODEX, shell["ref"])["receipt"]["output"])["output"]
    assert terminal.text_content() == text and "{" not in terminal.text_content()
    page = open_page(at(CHILD, "toolu_01Rz8DmcGSekRZkXBapKy62K")).page  # Grep: text, not a file
    shown = page.wait_for_selector("[data-testid=output-text]", timeout=10_000)
    grep = recorded(served, CHILD, "toolu_01Rz8DmcGSekRZkXBapKy62K")["receipt"]["output"]
    assert shown.text_content() == grep and len(shown.text_content().splitlines()) == 5
    assert page.query_selector("[data-testid=file-read]") is None


# -- only what happened: a non-zero exit marked, nothing made up, no diff for a no-op ------

FAILED_COLOUR = "rgb(209, 73, 91)"
"""The pages' colour of a failure (``--failed`` in report.css)."""


def colour(element: Any) -> str:
    found: str = element.evaluate("e => getComputedStyle(e).color")
    return found


def test_a_call_that_exited_non_zero_is_marked_and_the_failure_buttons_stop_at_it(
    served: Served, open_page: Callable[[str], Opened]
) -> None:
    [row] = served.answer("/api/v1/sessions", q="agent-a2898e3")["sessions"]
    assert row["statuses"]["completed"] == 25 and row["exited_nonzero"] == 1
    # After the last failed Read (sequence 28) the next failure is the find that exited 1.
    seek = served.answer(f"/api/v1/sessions/{quote(CHILD, safe='')}/seek", **{"from": 28})
    assert seek["invocation_id"] == f"{CHILD}/{FIND}" and seek["exited_nonzero"] is True
    bars = served.answer(f"/api/v1/sessions/{quote(CHILD, safe='')}/timeline")["bars"]
    assert [b["invocation_id"] for b in bars if b["exited_nonzero"]] == [f"{CHILD}/{FIND}"]
    opened = open_page(f"/sessions/{quote(CHILD, safe='')}?at=28")
    page = opened.page
    assert opened.counts()["exited_nonzero"] == 0 and opened.counts("final-")["exited_nonzero"] == 1
    page.click("#next-failure")
    page.wait_for_selector(f"#invocation[data-invocation='{CHILD}/{FIND}']", timeout=10_000)
    page.wait_for_selector("[data-testid=sequence]:text-is('85')", timeout=10_000)
    page.wait_for_selector("#count-exited_nonzero b:text-is('1')", timeout=10_000)
    [bar] = page.query_selector_all("#timeline rect.bar.exited")
    # Its own colour, not the completed calls' green, and named in the legend.
    assert bar.evaluate("e => getComputedStyle(e).fill") == "rgb(162, 59, 156)"
    assert "exited non-zero" in page.inner_text("#timeline-legend")
    code = page.wait_for_selector("#versions .exit-code.nonzero", timeout=10_000)
    assert code.text_content() == "exit 1" and colour(code) == FAILED_COLOUR


def test_no_time_and_no_exit_code_the_transcript_did_not_record_is_shown(
    served: Served, open_page: Callable[[str], Opened]
) -> None:
    for session in ("aider", "traffic-bare"):
        [row] = [r for r in served.answer("/api/v1/sessions", q=session)["sessions"]
                 if r["session_id"] == session]  # fmt: skip
        assert row["first_time"] is None and row["last_time"] is None
        timeline = served.answer(f"/api/v1/sessions/{session}/timeline")
        assert timeline["axis"] == "sequence" and timeline["origin"] is None
        assert served.answer(f"/api/v1/sessions/{session}/scrub", at=5)["time"] is None
        page = open_page(f"/sessions/{session}?at=5").page
        page.wait_for_selector("#timeline[data-axis=sequence] rect.bar", timeout=10_000)
        page.dispatch_event("#timeline rect.bar", "click")
        page.wait_for_selector("#versions tr.version", timeout=10_000)
        page.wait_for_selector("#tools tr:nth-child(2)", timeout=10_000)
        text = page.inner_text("body")
        assert "2000-01-01" not in text and " UTC" not in text and "records no time" in text
        assert " ms" not in page.inner_text("#tools") and " s /" not in page.inner_text("#tools")
    page = open_page(at(CHILD, READ)).page  # a Read: no process, no exit code
    page.wait_for_selector("#versions tr.version", timeout=10_000)
    shown = page.inner_text("[data-testid=history]").lower()  # its headings are capitals
    assert "exit 0" not in shown and "exit code not recorded" in shown
    record = recorded(served, CHILD, READ)
    assert record["receipt"]["exit_code"] is None


def test_an_edit_that_did_nothing_says_so_in_words_and_shows_no_diff(
    served: Served, open_page: Callable[[str], Opened]
) -> None:
    view = served.answer(f"/api/v1/sessions/{PONY}/invocations/toolu_12/view")["view"]
    assert view["applied"] is False and "files" not in view
    assert view["why"].startswith("ERROR: No replacement was performed")
    page = open_page(at(PONY, "toolu_12")).page
    words = page.wait_for_selector("[data-testid=edit-not-applied]", timeout=10_000)
    assert "No replacement was performed" in words.inner_text()
    assert page.query_selector("[data-testid=edit-diff]") is None
    assert page.query_selector(".diff-add") is None
    page = open_page(at(PONY, "toolu_14")).page  # the edit that took: its diff
    page.wait_for_selector("[data-testid=edit-diff] .diff-add", timeout=10_000)


def test_a_value_cut_to_fit_the_store_is_said_on_its_call(
    served: Served, open_page: Callable[[str], Opened]
) -> None:
    cut = recorded(served, CHILD, LS)["receipt"]["metadata"]["cut"]
    page = open_page(at(CHILD, LS)).page
    note = page.wait_for_selector("[data-testid=cut-note]", timeout=10_000)
    assert note.inner_text().startswith(f"Cut to fit the store: {cut}")
    assert "bytes, sha256:" in cut
