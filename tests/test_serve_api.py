"""``correx-tools serve``'s JSON API: the command's answers, paged, with clear errors.

A real server runs as a subprocess on loopback over the demo's SQLite store
(two generated sessions with refused events and the real Claude Code
transcript). Each answer is held to the document the command prints with
``--json`` for the same question; then the paging, the errors, and a session
growing while it is watched.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
import urllib.request
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from correx_tools import SessionId, SQLiteEventStore
from correx_tools.shell.cli.main import main

from .serving import ROOT, Served, demo_store, wait_for
from .strategies import completed, requested, started, stored

REAL = "real-claude-code-subagent"
GENERATED = "demo-run01-session-2"  # has events the lifecycle refused
PAGING = ("total", "offset", "limit", "quarantined_total")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("serve-demo")
    return demo_store(directory, 2, 150)


@pytest.fixture(scope="module")
def lenient(demo: Path) -> Iterator[Served]:
    served = Served(demo, "--lenient", "--no-redact")
    yield served
    assert served.stop()[0] == 0


@pytest.fixture(scope="module")
def strict(demo: Path) -> Iterator[Served]:
    served = Served(demo, "--no-redact")
    yield served
    assert served.stop()[0] == 0


def command(*arguments: str) -> Any:
    """What the command prints with ``--json`` (run in this process)."""
    out = io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(io.StringIO()):
        assert main([*arguments, "--json"]) == 0
    return json.loads(out.getvalue())


def without(document: dict[str, Any], *keys: str) -> dict[str, Any]:
    return {key: value for key, value in document.items() if key not in keys}


def last_of(demo: Path, session: str) -> int:
    with SQLiteEventStore(demo, read_only=True) as store:
        return store.last_sequence(SessionId(session))


def test_the_sessions_are_the_commands(demo: Path, lenient: Served) -> None:
    answer = lenient.answer("/api/v1/sessions")
    expected = command("sessions", str(demo))
    assert answer["source"] == expected["source"] and answer["total"] == 3
    rows = [{k: v for k, v in row.items() if k != "ref"} for row in answer["sessions"]]
    # Every key the page has, the command has, with the same value.
    by_id = {row["session_id"]: row for row in expected["sessions"]}
    assert rows == [{**{k: by_id[row["session_id"]].get(k) for k in row}, "damaged": None}
                    for row in rows]  # fmt: skip
    real = next(row for row in answer["sessions"] if row["session_id"] == REAL)
    assert real["first_time"] < real["last_time"] and real["ref"] == REAL


@pytest.mark.parametrize("session", [GENERATED, REAL])
def test_the_state_at_any_sequence_is_replay_at(demo: Path, lenient: Served, session: str) -> None:
    last = last_of(demo, session)
    for at, offset, limit in [(0, 0, 100), (1, 0, 100), (last // 3, 0, 7), (last // 2, 5, 10),
                              (last, 0, 1000), (last, 140, 100)]:  # fmt: skip
        answer = lenient.answer(
            f"/api/v1/sessions/{session}/state", at=at, offset=offset, limit=limit
        )
        expected = command("replay", str(demo), session, "--at", str(at), "--lenient")
        page = slice(offset, offset + limit)
        assert answer["invocations"] == expected["invocations"][page]
        assert answer["quarantined"] == expected["quarantined"][page]
        assert answer["total"] == len(expected["invocations"])
        assert answer["quarantined_total"] == len(expected["quarantined"])
        lists = ("invocations", "quarantined")
        assert without(answer, *PAGING, *lists) == without(expected, *lists)


def test_history_diff_and_stats_are_the_commands(demo: Path, lenient: Served) -> None:
    last = last_of(demo, GENERATED)
    for number in (0, 5, 77, 149):
        invocation = f"{GENERATED}/call-{number:05d}"
        answer = lenient.answer(
            f"/api/v1/sessions/{GENERATED}/invocations/{invocation.replace('/', '%2F')}/history"
        )
        assert answer == command("history", str(demo), GENERATED, invocation)
    for a, b, offset in [(0, last, 0), (0, last, 120), (10, 200, 3), (250, 251, 0), (7, 7, 0)]:
        answer = lenient.answer(f"/api/v1/sessions/{GENERATED}/diff", a=a, b=b, offset=offset)
        expected = command("diff", str(demo), GENERATED, str(a), str(b), "--limit", "0")
        assert [{k: v for k, v in c.items() if k != "ref"} for c in answer["changes"]] == (
            expected["changes"][offset : offset + 100]
        )
        assert answer["total"] == len(expected["changes"]) and answer["a"] == a
        assert answer["exited_nonzero"] == expected["exited_nonzero"]
    for at in (0, 3, last // 2, last):
        answer = lenient.answer(f"/api/v1/sessions/{GENERATED}/stats", at=at, limit=2)
        expected = command("stats", str(demo), GENERATED, "--at", str(at), "--lenient")
        assert answer["tools"] == expected["tools"]
        assert answer["in_flight"] == expected["in_flight"][:2]
        assert answer["total"] == len(expected["in_flight"])


def test_the_stats_of_an_imported_session_are_the_commands_key_for_key(
    demo: Path, lenient: Served
) -> None:
    last = last_of(demo, REAL)
    for at in (0, 5, last // 2, last):
        answer = lenient.answer(f"/api/v1/sessions/{REAL}/stats", at=at, limit=1000)
        expected = command("stats", str(demo), REAL, "--at", str(at), "--lenient")
        # Its tokens (null where none) and the figures of the calls whose times are
        # recorded, as the command gives them.
        assert without(answer, *PAGING) == expected
    assert answer["tokens"]["total"]["total"] > 0
    read = next(tool for tool in answer["tools"] if tool["tool_name"] == "Read")
    assert read["queued_seconds"]["calls"] == 0 and read["took_seconds"]["calls"] == 16


@pytest.mark.parametrize("session", [REAL, GENERATED])
def test_a_diff_is_the_commands_list_in_its_order_page_by_page(
    demo: Path, lenient: Served, session: str
) -> None:
    last = last_of(demo, session)
    for a, b, limit in [(0, last, 7), (last // 4, last // 2, 3), (last // 3, last, 10),
                        (13, 40, 1), (29, 75, 4), (last - 1, last, 5)]:  # fmt: skip
        expected = command("diff", str(demo), session, str(a), str(b), "--limit", "0")
        pages, offset = [], 0
        while True:
            answer = lenient.answer(
                f"/api/v1/sessions/{session}/diff", a=a, b=b, offset=offset, limit=limit
            )
            assert answer["total"] == expected["total"] == len(expected["changes"])
            pages += [{k: v for k, v in c.items() if k != "ref"} for c in answer["changes"]]
            offset += limit
            if offset >= answer["total"]:
                break
        assert pages == expected["changes"], (session, a, b)


def test_a_strict_server_refuses_what_a_strict_command_refuses(demo: Path, strict: Served) -> None:
    refused = command("replay", str(demo), GENERATED, "--lenient")["quarantined"][0]["sequence"]
    before = strict.answer(f"/api/v1/sessions/{GENERATED}/state", at=refused - 1)
    assert (
        before["invocations"]
        == command("replay", str(demo), GENERATED, "--at", str(refused - 1))["invocations"][:100]
    )
    for question in ("state", "stats", "scrub"):
        status, body, _ = strict.get(f"/api/v1/sessions/{GENERATED}/{question}", {"at": refused})
        assert status == 409, question
        assert f"sequence {refused}:" in body["error"] and "--lenient" in body["error"]
    # history and diff are lenient, as the command's are.
    assert strict.answer(f"/api/v1/sessions/{GENERATED}/diff", a=0, b=refused)["total"] > 0


def test_every_list_is_paged(lenient: Served) -> None:
    whole = lenient.answer(f"/api/v1/sessions/{GENERATED}/state", limit=1000)
    assert whole["total"] == 150 == len(whole["invocations"])
    pages = [
        lenient.answer(f"/api/v1/sessions/{GENERATED}/state", offset=o, limit=40)["invocations"]
        for o in range(0, 160, 40)
    ]
    assert [len(p) for p in pages] == [40, 40, 40, 30]
    assert [r for page in pages for r in page] == whole["invocations"]
    assert len(lenient.answer(f"/api/v1/sessions/{GENERATED}/state")["invocations"]) == 100
    two = lenient.answer("/api/v1/sessions", limit=2, sort="-events")
    assert two["total"] == 3 and len(two["sessions"]) == 2
    assert two["sessions"][0]["events"] >= two["sessions"][1]["events"]
    found = lenient.answer("/api/v1/sessions", q="CLAUDE")["sessions"]
    assert [row["session_id"] for row in found] == [REAL]


@pytest.mark.parametrize(
    ("path", "params", "status", "words"),
    [
        ("/api/v1/sessions/nope/state", {}, 404, "no session 'nope'"),
        (f"/api/v1/sessions/{REAL}/state", {"at": "x"}, 400, "at='x' is not a whole number"),
        (f"/api/v1/sessions/{REAL}/state", {"at": 121}, 400, "at=121 is outside session"),
        (f"/api/v1/sessions/{REAL}/state", {"at": -1}, 400, "at=-1 is outside session"),
        (f"/api/v1/sessions/{REAL}/diff", {"a": 9, "b": 3}, 400, "a=9 is after b=3"),
        (f"/api/v1/sessions/{REAL}/diff", {"b": 3}, 400, "a is required"),
        (f"/api/v1/sessions/{REAL}/state", {"limit": 1001}, 400, "limit=1001 is not between"),
        (f"/api/v1/sessions/{REAL}/state", {"offset": -2}, 400, "offset=-2 is negative"),
        (f"/api/v1/sessions/{REAL}/invocations/nope/history", {}, 404, "'nope' was never"),
        (f"/api/v1/sessions/{REAL}/seek", {"direction": "up"}, 400, "direction='up'"),
        (f"/api/v1/sessions/{REAL}/search", {"status": "odd"}, 400, "status='odd'"),
        (f"/api/v1/sessions/{REAL}/nothing", {}, 404, "no such question"),
        ("/api/v2/sessions", {}, 404, "nothing at /api/v2/sessions"),
    ],
)
def test_a_bad_question_is_a_json_error_that_says_what_is_wrong(
    lenient: Served, path: str, params: dict[str, object], status: int, words: str
) -> None:
    got, body, headers = lenient.get(path, params)
    assert got == status and words in body["error"], body
    assert headers["content-type"] == "application/json" and "Traceback" not in body["error"]


def test_the_scrubber_the_seek_and_the_refused_events(demo: Path, lenient: Served) -> None:
    expected = command("replay", str(demo), GENERATED, "--lenient")["quarantined"]
    refused = lenient.answer(f"/api/v1/sessions/{GENERATED}/refused")
    assert [r["sequence"] for r in refused["refused"]] == [q["sequence"] for q in expected]
    assert [r["error"] for r in refused["refused"]] == [q["error"] for q in expected]
    at = expected[0]["sequence"]
    scrub = lenient.answer(f"/api/v1/sessions/{GENERATED}/scrub", at=at, since=at - 20)
    state = command("replay", str(demo), GENERATED, "--at", str(at), "--lenient")
    counts = {k: v for k, v in scrub["counts"].items() if k not in ("refused", "exited_nonzero")}
    assert counts == state["statuses"]
    assert scrub["counts"]["exited_nonzero"] == state["exited_nonzero"]
    assert scrub["counts"]["refused"] == 1
    assert [e["sequence"] for e in scrub["events"]] == list(range(at - 6, at + 4))
    assert next(e for e in scrub["events"] if e["sequence"] == at)["kind"] == "refused"
    changes = command("diff", str(demo), GENERATED, str(at - 20), str(at))["changes"]
    assert scrub["changes"]["total"] == len(changes)
    failures = [r for r in state["invocations"] if r["status"] in ("failed", "rejected")]
    seek = lenient.answer(f"/api/v1/sessions/{GENERATED}/seek", **{"from": 0})
    assert (
        seek["invocation_id"] == failures[0]["invocation_id"]
        and seek["status"] == failures[0]["status"]
    )
    back = lenient.answer(
        f"/api/v1/sessions/{GENERATED}/seek", direction="previous", **{"from": seek["sequence"]}
    )
    assert back["sequence"] is None  # fmt: skip


def test_search_pages_through_every_match(demo: Path, lenient: Served) -> None:
    everything = command("replay", str(demo), GENERATED, "--lenient")["invocations"]
    wanted = [
        r["invocation_id"]
        for r in everything
        if r["status"] == "failed" and r["tool_name"] == "run_tests"
    ]
    found, after = [], -1
    while after is not None:
        page = lenient.answer(f"/api/v1/sessions/{GENERATED}/search", tool="run_tests",
                              status="failed", after=after, limit=3)  # fmt: skip
        assert len(page["matches"]) <= 3
        found += [m["invocation_id"] for m in page["matches"]]
        after = page["next"]
    assert found == wanted and wanted
    text = lenient.every_match(f"/api/v1/sessions/{GENERATED}/search", q="PERMISSION DENIED")
    expected = [
        r["invocation_id"] for r in everything if "permission denied" in (r["reason"] or "")
    ]
    assert [m["invocation_id"] for m in text] == expected and expected
    assert all(m["where"] == ["reason"] for m in text)


def test_the_timeline_draws_every_call_once(lenient: Served) -> None:
    whole = lenient.answer(f"/api/v1/sessions/{GENERATED}/timeline")
    assert whole["mode"] == "bars" and whole["visible"] == len(whole["bars"]) == 150
    buckets = lenient.answer(f"/api/v1/sessions/{GENERATED}/timeline", buckets=10)
    half = lenient.answer(
        f"/api/v1/sessions/{GENERATED}/timeline", **{"from": 0, "to": whole["end"] // 2}
    )
    assert 0 < half["visible"] < 150 and buckets["to"] == whole["end"]


def test_a_bar_whose_start_was_recorded_before_its_request_keeps_its_start(
    tmp_path: Path,
) -> None:
    path = tmp_path / "skew.sqlite"
    events = [requested("a"), started("a"), completed("a"), requested("b")]
    with SQLiteEventStore(path) as store:
        store.import_events(stored(events, session="skew", times=[100, 50, 160, 170])).unwrap()
    with SQLiteEventStore(path) as store:  # and a session with no call at all
        store.import_events(stored([started("ghost")], session="lone")).unwrap()
    served = Served(path, "--lenient")
    try:
        timeline = served.answer("/api/v1/sessions/skew/timeline")
        lone = served.answer("/api/v1/sessions/lone/timeline")
    finally:
        assert served.stop()[0] == 0
    second = 1_000_000
    skewed, waiting = timeline["bars"]
    assert skewed["started"] == timeline["from"] == 0  # the session starts with that start
    assert lone["origin"] is None and lone["origin_us"] is None
    assert skewed["started"] - skewed["requested"] == -50 * second
    assert skewed["ended"] - skewed["requested"] == 60 * second
    assert waiting["started"] is None and waiting["ended"] is None


def test_a_growing_session_is_pushed_before_the_streams_keep_alive(tmp_path: Path) -> None:
    # The head written next comes before the stream's keep-alive (after 15 s of quiet): the
    # store is watched (every half second), not waited on. How soon is not timed here.
    path = tmp_path / "live.sqlite"
    with SQLiteEventStore(path) as store:
        store.import_events(stored([requested("a"), started("a")], session="live")).unwrap()
    served = Served(path)
    try:
        request = urllib.request.Request(
            served.base + "/api/v1/sessions/live/stream",
            headers={"Authorization": f"Bearer {served.token}"},
        )
        with urllib.request.urlopen(request, timeout=10) as stream:
            assert stream.headers["content-type"].startswith("text/event-stream")
            assert stream.readline() == b"event: head\n"
            assert json.loads(stream.readline().removeprefix(b"data: ")) == {"last_sequence": 2}
            stream.readline()
            writer = subprocess.run(
                [sys.executable, "-c", _APPEND, str(path)], env={"PYTHONPATH": str(ROOT)},
                check=True, capture_output=True, text=True, timeout=60,
            )  # fmt: skip
            assert writer.stdout.strip() == "3"
            assert stream.readline() == b"event: head\n"
            assert json.loads(stream.readline().removeprefix(b"data: ")) == {"last_sequence": 3}
        scrub = wait_for(lambda: served.answer("/api/v1/sessions/live/scrub"))
        assert scrub["last"] == 3 and scrub["counts"]["completed"] == 1
    finally:
        assert served.stop()[0] == 0


_APPEND = """
import sys
from correx_tools import (SQLiteEventStore, SessionId, InvocationId, ToolExecutionCompletedEvent,
                          ToolReceipt)
with SQLiteEventStore(sys.argv[1]) as store:
    receipt = ToolReceipt(output="ok", exit_code=0)
    done = ToolExecutionCompletedEvent(invocation_id=InvocationId("a"), receipt=receipt)
    print(store.append(SessionId("live"), [done], expected_sequence=2).unwrap()[-1].sequence)
"""
