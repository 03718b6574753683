"""``correx-tools serve`` is safe by default: a token, a Host check, masked secrets, read-only.

The real server runs as a subprocess on loopback; requests are made as a
browser or a script on this machine would make them, and as a page on
another site that resolves its own name to this machine would (DNS rebinding).
"""

from __future__ import annotations

import hashlib
import json
import sqlite3
from collections.abc import Iterator
from pathlib import Path

import pytest

from correx_tools import JsonlEventLog, SQLiteEventStore
from correx_tools.shell.serve.guard.access import CODE_SECONDS, Access

from .serving import ROOT, Served
from .strategies import SECRET, completed, planted_secrets, requested, started, stored

SESSION = "run-1"


@pytest.fixture(scope="module")
def store(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("serve-safety") / "secrets.sqlite"
    events = stored(
        [
            *planted_secrets(),
            requested(f"c-{SECRET}", tool="shell", api_key="plain words"),
            started(f"c-{SECRET}"),
            completed(f"c-{SECRET}", output={"printed": f"OPENAI_API_KEY={SECRET}"}),
        ],
        session=SESSION,
    )
    events += stored([requested("d")], session=f"deploy {SECRET}")
    with SQLiteEventStore(path) as written:
        written.import_events(events).unwrap()
    return path


@pytest.fixture(scope="module")
def served(store: Path) -> Iterator[Served]:
    server = Served(store, "--redact", r"ACME-\d+")
    yield server
    assert server.stop()[0] == 0


QUESTIONS = [
    ("/api/v1/sessions", {}),
    (f"/api/v1/sessions/{SESSION}", {}),
    (f"/api/v1/sessions/{SESSION}/state", {}),
    (f"/api/v1/sessions/{SESSION}/diff", {"a": 0, "b": 8}),
    (f"/api/v1/sessions/{SESSION}/stats", {"at": 7}),
    (f"/api/v1/sessions/{SESSION}/scrub", {"at": 6, "since": 0}),
    (f"/api/v1/sessions/{SESSION}/timeline", {}),
    (f"/api/v1/sessions/{SESSION}/search", {}),
    (f"/api/v1/sessions/{SESSION}/search", {"q": "hunter2"}),
    (f"/api/v1/sessions/{SESSION}/invocations/a/history", {}),
    (f"/api/v1/sessions/{SESSION}/seek", {"from": 0}),
]


def test_no_answer_holds_a_planted_secret(served: Served) -> None:
    for path, params in QUESTIONS:
        status, body, _ = served.get(path, params)
        text = str(body)
        assert status == 200, (path, body)
        for planted in (SECRET, "hunter2hunter2", "ACME-123456", "plain words"):
            assert planted not in text, (path, planted)
    assert served.answer(f"/api/v1/sessions/{SESSION}/search", q="hunter2")["matches"] == []


def test_an_id_the_redaction_masks_is_asked_for_by_its_ref(served: Served) -> None:
    rows = served.answer("/api/v1/sessions")["sessions"]
    masked = next(row for row in rows if row["session_id"] != SESSION)
    assert masked["session_id"] == "deploy [REDACTED]" and masked["ref"].startswith("~")
    assert served.answer(f"/api/v1/sessions/{masked['ref']}/state")["total"] == 1
    scrub = served.answer(f"/api/v1/sessions/{SESSION}/scrub", at=8)
    call = next(e for e in scrub["events"] if e["sequence"] == 8)
    assert "[REDACTED]" in call["invocation_id"] and call["ref"].startswith("~")
    history = served.answer(f"/api/v1/sessions/{SESSION}/invocations/{call['ref']}/history")
    assert [v["record"]["status"] for v in history["versions"]] == [
        "requested", "started", "completed"
    ]  # fmt: skip


def test_every_answer_but_the_pages_files_needs_a_credential(served: Served) -> None:
    for path in ("/api/v1/sessions", f"/api/v1/sessions/{SESSION}/state", "/api/v1",
                 "/nothing", "/sessions/run-1/state", "/static/a/b"):  # fmt: skip
        status, body, _ = served.get(path, token=False)
        assert status == 401 and "needs its link or its token" in str(body), path
    # The page's own files hold no session data: anyone may load them, and the page's status
    # says nothing of the store to a client without a credential.
    for path in (
        "/",
        f"/sessions/{SESSION}",
        "/sessions/no-such-session",
        "/compare",
        "/static/serve.js",
    ):
        status, body, _ = served.get(path, token=False)
        assert status == 200 and SESSION not in body and SECRET not in body, path
    assert served.get("/sessions/no-such-session")[0] == 404  # with the token, it does
    assert served.get("/api/v1/sessions", headers={"Authorization": "Bearer nope"})[0] == 401
    # Neither an address nor a cookie carries a credential (history, logs, other ports).
    assert served.get("/api/v1/sessions", {"token": served.token}, token=False)[0] == 401
    cookie = {"Cookie": f"correx_serve_{served.port}={served.token}"}
    assert served.get("/api/v1/sessions", headers=cookie, token=False)[0] == 401


def test_a_code_is_traded_once_for_a_credential(served: Served) -> None:
    code = served.link().rsplit("#code=", 1)[1]
    status, body, _ = served.post("/api/v1/credential", {"code": code}, token=False)
    assert status == 200 and body["credential"] not in (code, served.token)
    bearer = {"Authorization": f"Bearer {body['credential']}"}
    assert served.get("/api/v1/sessions", headers=bearer)[0] == 200
    # Used once, the code (in a history, a log, a command line) is worthless.
    status, again, _ = served.post("/api/v1/credential", {"code": code}, token=False)
    assert status == 401 and "used already" in again["error"] and "credential" not in again
    for bad in ({"code": "made-up"}, {"code": served.token}, {"code": 7}, {}, [code], "x" * 9999):
        assert served.post("/api/v1/credential", bad, token=False)[0] in (400, 401), bad
    # Only the token's holder may ask for a fresh code; a browser's credential may not.
    assert served.post("/api/v1/codes", None, token=False)[0] == 401
    assert served.post("/api/v1/codes", None, headers=bearer, token=False)[0] == 401


def test_a_request_for_another_host_is_refused(served: Served) -> None:
    for host in ("evil.example", f"evil.example:{served.port}", "127.0.0.1.evil.example"):
        status, body, _ = served.get("/api/v1/sessions", headers={"Host": host})
        assert status == 403 and "DNS rebinding" in body["error"], host
    for host in (f"localhost:{served.port}", f"127.0.0.1:{served.port}", "LOCALHOST"):
        assert served.get("/api/v1/sessions", headers={"Host": host})[0] == 200, host


def test_every_answer_forbids_loading_anything_from_elsewhere(served: Served) -> None:
    for path, token in (("/", True), ("/static/page.js", True), ("/api/v1/sessions", True),
                        ("/api/v1/nothing", True), ("/api/v1/sessions", False)):  # fmt: skip
        _, _, headers = served.get(path, token=token)
        policy = headers["content-security-policy"]
        assert "default-src 'none'" in policy and "script-src 'self'" in policy
        assert "unsafe-inline" not in policy and "frame-ancestors 'none'" in policy
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["referrer-policy"] == "no-referrer"
    # Nothing is fetched from another site: the page names none, the scripts only the SVG
    # namespace (a name, never loaded).
    assert "http" not in served.get("/")[1]
    for script in ("serve.js", "page.js", "compare.js"):
        text = served.get(f"/static/{script}")[1]
        assert text.count("http") == text.count("http://www.w3.org/2000/svg"), script
    assert served.get("/static/nothing.js")[0] == 404


def _fingerprint(directory: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in directory.iterdir()}


@pytest.fixture
def used(store: Path, tmp_path: Path) -> tuple[dict[str, str], dict[str, str]]:
    """A copy of the store, and its directory before and after a session of use."""
    copy = tmp_path / "copy.sqlite"
    copy.write_bytes(store.read_bytes())
    before = _fingerprint(tmp_path)
    server = Served(copy, "--lenient")
    for path, params in QUESTIONS:
        assert server.get(path, params)[0] == 200
    assert server.stop()[0] == 0
    return before, _fingerprint(tmp_path)


def test_the_store_file_is_unchanged_by_a_session_of_use(
    used: tuple[dict[str, str], dict[str, str]],
) -> None:
    before, after = used
    assert after["copy.sqlite"] == before["copy.sqlite"]


def test_a_session_of_use_leaves_no_file_behind(
    used: tuple[dict[str, str], dict[str, str]],
) -> None:
    before, after = used
    assert sorted(after) == sorted(before)


def test_a_stale_index_names_verify_instead_of_folding(store: Path, tmp_path: Path) -> None:
    copy = tmp_path / "stale.sqlite"
    copy.write_bytes(store.read_bytes())
    with sqlite3.connect(copy) as connection:
        connection.execute("UPDATE session_heads SET stale = 1 WHERE session_id = ?", (SESSION,))
    server = Served(copy)
    try:
        status, body, _ = server.get(f"/api/v1/sessions/{SESSION}/state")
        assert status == 409 and f"correx-tools verify {copy} says what" in body["error"]
        assert server.get(f"/sessions/{SESSION}")[0] == 409
        assert server.answer("/api/v1/sessions")["total"] == 2  # the list still shows it
    finally:
        assert server.stop()[0] == 0


def test_a_store_of_an_older_release_names_reindex_too(tmp_path: Path) -> None:
    copy = tmp_path / "old.sqlite"
    copy.write_bytes((ROOT / "tests" / "data" / "layout-v1.sqlite").read_bytes())
    server = Served(copy, "--lenient")
    try:
        rows = server.answer("/api/v1/sessions")["sessions"]
        assert [row["session_id"] for row in rows] == ["legacy-session-a", "legacy-session-b"]
        status, body, _ = server.get("/api/v1/sessions/legacy-session-a/scrub")
        assert status == 409 and "older release" in body["error"]
        assert f"correx-tools reindex {copy}" in body["error"]
    finally:
        assert server.stop()[0] == 0


def _session_events(name: str, calls: int) -> list[object]:
    return stored(
        [e for i in range(calls) for e in (requested(f"{name}-{i}"), started(f"{name}-{i}"),
                                            completed(f"{name}-{i}"))],
        session=name,
    )  # fmt: skip


def test_damaged_events_are_named_never_a_500(tmp_path: Path) -> None:
    path = tmp_path / "damaged.sqlite"
    with SQLiteEventStore(path) as written:
        written.import_events([*_session_events("good", 5), *_session_events("gap", 5)]).unwrap()
    with sqlite3.connect(path) as connection:
        connection.execute("DELETE FROM events WHERE session_id = 'gap' AND sequence = 4")
    connection.close()
    server = Served(path, "--lenient")
    try:
        rows = {row["session_id"]: row for row in server.answer("/api/v1/sessions")["sessions"]}
        assert rows["good"]["damaged"] is None and rows["good"]["invocations"] == 5
        assert rows["gap"]["invocations"] is None
        assert "correx-tools verify" in rows["gap"]["damaged"]
        for sort in ("-events", "invocations", "-open", "refused"):
            assert server.get("/api/v1/sessions", {"sort": sort})[0] == 200
        status, body, _ = server.get("/api/v1/sessions/gap/state")
        assert status == 409 and "correx-tools verify" in body["error"]
        searched = server.answer("/api/v1/search", q="gap-")
        assert searched["matches"] == [] and searched["skipped"] == ["gap"]
        for bad in ("--5", "²", "٣", "1e3", " 7"):
            status, body, _ = server.get("/api/v1/sessions/good/state", {"at": bad})
            assert status == 400 and "not a whole number" in body["error"], (bad, body)
    finally:
        assert server.stop()[0] == 0


def test_a_log_line_that_cannot_be_read_is_a_409_naming_verify(tmp_path: Path) -> None:
    log = tmp_path / "damaged.jsonl"
    JsonlEventLog(log).import_events(_session_events("s", 3)).unwrap()
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join([*lines[:2], lines[2].replace(b'"s-0"', b'"s-9"'), *lines[3:]]))
    server = Served(log, "--lenient")
    try:
        status, body, _ = server.get("/api/v1/sessions/s/state")
        assert status == 409 and "checksum" in body["error"]
        assert "correx-tools verify" in body["error"]
    finally:
        assert server.stop()[0] == 0


def test_a_log_line_written_twice_is_counted_once_everywhere(tmp_path: Path) -> None:
    log = tmp_path / "twice.jsonl"
    JsonlEventLog(log).import_events(_session_events("s", 3)).unwrap()
    lines = log.read_bytes().splitlines(keepends=True)
    log.write_bytes(b"".join([*lines[:5], lines[4], *lines[5:]]))  # a delivery made twice
    server = Served(log, "--lenient")
    try:
        assert server.answer("/api/v1/sessions/s")["last_sequence"] == 9
        for at in range(10):
            scrub = server.answer("/api/v1/sessions/s/scrub", at=at)
            assert all(count >= 0 for count in scrub["counts"].values()), scrub
        state = server.answer("/api/v1/sessions/s/state", at=9)
        assert [record["status"] for record in state["invocations"]] == ["completed"] * 3
    finally:
        assert server.stop()[0] == 0


def test_an_invocation_opened_is_whole_and_a_list_cuts_long_values(tmp_path: Path) -> None:
    path = tmp_path / "long.sqlite"
    output = "x" * 5_000 + f" OPENAI_API_KEY={SECRET}"
    events = stored([requested("a"), started("a"), completed("a", output={"log": output})],
                    session=SESSION)  # fmt: skip
    with SQLiteEventStore(path) as written:
        written.import_events(events).unwrap()
    server = Served(path)
    try:
        history = server.get(f"/api/v1/sessions/{SESSION}/invocations/a/history")[1]
        shown = json.dumps(history)
        assert "x" * 5_000 in shown and SECRET not in shown  # whole, and still masked
        state = json.dumps(server.answer(f"/api/v1/sessions/{SESSION}/state"))
        assert "x" * 5_000 not in state and "[cut: " in state
    finally:
        assert server.stop()[0] == 0


def test_a_link_is_good_for_five_minutes_and_the_terminal_always_shows_one_that_works() -> None:
    now, told = [0.0], []
    access = Access("t" * 32, link=lambda code: f"/#code={code}", tell=told.append,
                    clock=lambda: now[0])  # fmt: skip
    printed = access.printed_link().split("=", 1)[1]
    asked = access.code()  # a script's own code: its use prints nothing
    assert access.trade(asked) is not None and told == []
    now[0] = CODE_SECONDS + 1  # nobody opened the printed link in time
    assert access.trade(printed) is None
    fresh = told[-1].rsplit("=", 1)[1]
    assert told == [f"a browser brought a dead link; to open the page in another browser: "
                    f"/#code={fresh}"]  # fmt: skip
    for made_up in ("x", "y", printed):  # while the printed link works, no more lines
        assert access.trade(made_up) is None
    assert len(told) == 1
    credential = access.trade(fresh)
    assert credential is not None and access.holder(f"Bearer {credential}") == "browser"
    assert told[-1].startswith("the link was opened; to open the page in another browser: ")
    assert access.holder("Bearer " + "t" * 32) == "token" and access.holder("Bearer x") is None
