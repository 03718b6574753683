"""Short names through the command and the server: a session by a prefix, an invocation by
the part after its session's prefix or a prefix of it, with what the full ids print.

The command runs (in this process) on the demo's SQLite file, a JSONL copy
and a PostgreSQL copy; the server as a real process on loopback.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from correx_tools import SessionId, SQLiteEventStore

from .serving import Served, demo_store
from .strategies import requested
from .test_first_hour import run

REAL = "real-claude-code-subagent"
CLEAN = "demo-run01-session-1"
CALL = f"{CLEAN}/call-00003"
TOOLU = f"{REAL}/toolu_01TfDS8UjxxjY4dzV8esUMzm"


def one_line_error(*args: str) -> str:
    done = run(*args)
    assert done.returncode == 1, done.stdout
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    return lines[0]


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_store(tmp_path_factory.mktemp("names"), 2, 200)


@pytest.fixture(scope="module")
def log(demo: Path) -> str:
    """The demo as a JSONL log."""
    copy = demo.with_name("demo.jsonl")
    assert run("import", str(demo), str(copy)).returncode == 0
    return str(copy)


@pytest.fixture(scope="module")
def postgres_copy(demo: Path, postgres_dsn: str) -> Iterator[str]:
    """The demo in a PostgreSQL database of its own."""
    import psycopg  # noqa: PLC0415 - only with PostgreSQL

    database = f"names_{uuid.uuid4().hex[:12]}"
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{database}"')
    url = postgres_dsn.rsplit("/", 1)[0] + f"/{database}"
    try:
        copied = run("import", str(demo), url)
        assert copied.returncode == 0, copied.stderr
        yield url
    finally:
        with psycopg.connect(postgres_dsn, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE "{database}" WITH (FORCE)')


# (short form, full form) of each command, with every way of naming: a session by a prefix,
# an invocation by its part after the session's prefix, and by a prefix of that.
PAIRS = [
    (["replay", "{s}", "real", "--at", "40"], ["replay", "{s}", REAL, "--at", "40"]),
    (["history", "{s}", CLEAN, "call-00003"], ["history", "{s}", CLEAN, CALL]),
    (["history", "{s}", "real", "toolu_01TfDS8U"], ["history", "{s}", REAL, TOOLU]),
    (["history", "{s}", "real", f"{REAL}/toolu_01Tf"], ["history", "{s}", REAL, TOOLU]),
    (["diff", "{s}", "real", "10", "60"], ["diff", "{s}", REAL, "10", "60"]),
    (["diff", "{s}", "real", "0", "100", "--summary"], ["diff", "{s}", REAL, "0", "100",
                                                         "--summary"]),
    (["stats", "{s}", "real", "--at", "50"], ["stats", "{s}", REAL, "--at", "50"]),
    (["export", "{s}", "real"], ["export", "{s}", REAL]),
]  # fmt: skip


# SQLite in the quick run, each pair in one of the two outputs (in turn); the JSONL log and
# PostgreSQL, each pair in both, with the slow tests (the same commands, minutes more).
@pytest.mark.parametrize(
    "kind",
    ["sqlite", pytest.param("log", marks=pytest.mark.slow),
     pytest.param("postgres_copy", marks=pytest.mark.slow)],
)  # fmt: skip
def test_a_short_name_prints_exactly_what_the_full_id_prints(
    demo: Path, kind: str, request: pytest.FixtureRequest
) -> None:
    source = str(demo) if kind == "sqlite" else request.getfixturevalue(kind)
    for number, (short, full) in enumerate(PAIRS):
        both = (["--json"], [])
        for json_flag in both if kind != "sqlite" else both[number % 2 : number % 2 + 1]:
            named = run(*[a.replace("{s}", source) for a in short], *json_flag)
            whole = run(*[a.replace("{s}", source) for a in full], *json_flag)
            assert named.returncode == whole.returncode == 0, (short, named.stderr)
            assert named.stdout == whole.stdout, (source, short)
            assert named.stderr == whole.stderr
    history = json.loads(run("history", str(demo), "real", "toolu_01TfDS8U", "--json").stdout)
    assert history["invocation_id"] == TOOLU and history["session_id"] == REAL


def test_a_report_by_a_short_name_is_the_same_page(demo: Path) -> None:
    short = run("report", str(demo), "real", "-o", "short.html", "--json", cwd=demo.parent)
    full = run("report", str(demo), REAL, "-o", "full.html", "--json", cwd=demo.parent)
    assert short.returncode == full.returncode == 0
    assert {**json.loads(short.stdout), "path": ""} == {**json.loads(full.stdout), "path": ""}
    assert (demo.parent / "short.html").read_bytes() == (demo.parent / "full.html").read_bytes()


def test_an_ambiguous_name_lists_a_few_and_an_unknown_one_says_so(demo: Path) -> None:
    line = one_line_error("history", str(demo), CLEAN, "call-0000")
    assert line == (
        f"correx-tools history: error: invocation 'call-0000' is ambiguous in session "
        f"'{CLEAN}': call-00000, call-00001, call-00002, call-00003, call-00004 and more"
    )
    line = one_line_error("replay", str(demo), "demo")
    assert line == (
        f"correx-tools replay: error: {demo}: session 'demo' is ambiguous: "
        "demo-run01-session-1, demo-run01-session-2"
    )
    line = one_line_error("stats", str(demo), "nobody")
    assert line.startswith(f"correx-tools stats: error: {demo}: no session 'nobody' (sessions: ")
    line = one_line_error("history", str(demo), CLEAN, "call-99999")
    assert line.endswith(f"invocation 'call-99999' was never requested in session '{CLEAN}'")
    for command in (["diff", str(demo), "de", "1", "2"], ["export", str(demo), "de"],
                    ["report", str(demo), "de"]):  # fmt: skip
        assert "is ambiguous" in one_line_error(*command)


def test_a_whole_id_wins_over_the_longer_ids_it_begins(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with SQLiteEventStore(path) as store:
        store.append(SessionId("s1"), [requested("s1/c1"), requested("s1/c10")],
                     expected_sequence=0).unwrap()  # fmt: skip
        store.append(SessionId("s10"), [requested("c1")], expected_sequence=0).unwrap()
    replayed = json.loads(run("replay", str(path), "s1", "--json").stdout)
    assert replayed["session_id"] == "s1"
    assert json.loads(run("history", str(path), "s1", "c1", "--json").stdout)["invocation_id"] == (
        "s1/c1"
    )
    assert json.loads(run("history", str(path), "s10", "c1", "--json").stdout)["invocation_id"] == (
        "c1"
    )
    assert json.loads(run("history", str(path), "s1", "c10", "--json").stdout)["invocation_id"] == (
        "s1/c10"
    )


@pytest.fixture(scope="module")
def served(demo: Path) -> Iterator[Served]:
    server = Served(demo, "--lenient", "--no-redact")
    yield server
    assert server.stop()[0] == 0


def test_the_servers_addresses_take_short_names_too(served: Served) -> None:
    full = f"/api/v1/sessions/{REAL}"
    for question, params in [("", {}), ("/state", {"at": 30}), ("/stats", {"at": 30}),
                             ("/diff", {"a": 3, "b": 60})]:  # fmt: skip
        assert served.answer(f"/api/v1/sessions/real{question}", **params) == served.answer(
            f"{full}{question}", **params
        )
    history = served.answer(f"{full}/invocations/{TOOLU.replace('/', '%2F')}/history")
    assert served.answer(f"{full}/invocations/toolu_01TfDS8U/history") == history
    assert served.answer("/api/v1/sessions/real/invocations/toolu_01Tf/history") == history
    status, body, _ = served.get(f"/api/v1/sessions/{CLEAN}/invocations/call-0000/history")
    assert (
        status == 404
        and "is ambiguous" in body["error"]
        and "call-00004 and more" in (body["error"])
    )
    status, body, _ = served.get("/api/v1/sessions/demo/state")
    assert status == 404 and "session 'demo' is ambiguous" in body["error"]
    status, _, _ = served.get("/sessions/real")
    assert status == 200


def test_a_masked_id_is_never_found_by_a_prefix(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    with SQLiteEventStore(path) as store:
        store.append(SessionId("run"), [requested("run/hunter2-call"), requested("run/other")],
                     expected_sequence=0).unwrap()  # fmt: skip
    server = Served(path, "--lenient", "--redact", "hunter2")
    try:
        base = "/api/v1/sessions/run/invocations"
        for name in ("hunter", "hunter2-c", "run/hunter"):
            status, body, _ = server.get(f"{base}/{name}/history")
            assert status == 404 and "hunter2" not in json.dumps(body), (name, body)
        assert server.answer(f"{base}/oth/history")["invocation_id"] == "run/other"
        # Named whole, as before, it is found (and shown masked).
        found = server.answer(f"{base}/run%2Fhunter2-call/history")
        assert "hunter2" not in json.dumps(found)
    finally:
        assert server.stop()[0] == 0
