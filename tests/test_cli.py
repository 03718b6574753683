"""The ``correx-tools`` command against real files: run in this process (`commands.correx`),
and as a real process where that is the point (a reader that stops early, a terminal, the
installed entry point)."""

from __future__ import annotations

import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from . import schemas
from .commands import Ran, correx

COMMANDS = [
    "demo",
    "sessions",
    "replay",
    "history",
    "diff",
    "compare",
    "import",
    "validate",
    "init-db",
    "replay-all",
    "tools",
    "import-transcript",
    "reindex",
    "stats",
    "export",
    "report",
    "audit",
]
DATA = Path(__file__).parent / "data"


def run(*args: str, cwd: Path | None = None, ok: bool = True) -> Ran:
    result = correx(*args, cwd=cwd)
    if ok:
        assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    return result


def run_json(*args: str, cwd: Path | None = None) -> Any:
    return json.loads(run(*args, "--json", cwd=cwd).stdout)


def fails(*args: str, words: str) -> str:
    result = run(*args, ok=False)
    assert result.returncode == 1
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
    assert words in lines[0]
    return lines[0]


@pytest.fixture(scope="module")
def demo_db(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("demo") / "demo.sqlite"
    document = run_json("demo", "--db", str(path), "--sessions", "3", "--invocations", "400")
    assert document["events"] == sum(document["sessions"].values())
    assert len(document["sessions"]) == 3
    return path


@pytest.mark.parametrize("command", COMMANDS)
def test_every_subcommand_has_help(command: str) -> None:
    result = run(command, "--help")
    assert "--json" in result.stdout


def test_the_default_demo_writes_a_realistic_run_and_walks_back_through_it(tmp_path: Path) -> None:
    document = run_json("demo", cwd=tmp_path)
    assert (tmp_path / "correx-demo.sqlite").exists()
    assert len(document["sessions"]) >= 3
    assert document["events"] >= 20_000
    statuses = document["statuses"]
    assert statuses["completed"] > 0 and statuses["failed"] > 0 and statuses["rejected"] > 0
    planted = document["planted_faults"]
    assert planted[next(iter(planted))] == 0, "the first session is clean"
    assert sum(planted.values()) > 0, "the others include illegal events"
    assert document["first_failure"] is not None
    assert [step["status"] for step in document["failure_history"]][-1] == "failed"
    # The bundled real transcript (a Claude Code subagent's session) is imported once.
    real = document["transcript"]
    assert {k: v for k, v in real["statuses"].items() if v} == {"completed": 25, "failed": 8}
    # After the event that describes the session and the conversation before the failure.
    assert real["first_failure"]["sequence"] == 10
    human = run("demo", cwd=tmp_path).stdout  # a second run adds a new run to the same file
    assert "already in the file as session real-claude-code-subagent" in human
    assert "demo-run02-session-1" in human
    assert "time travel" in human


def test_sessions_lists_counts(demo_db: Path) -> None:
    document = run_json("sessions", str(demo_db))
    rows = document["sessions"]
    # The session that moved last first.
    assert [r["last_time"] for r in rows] == sorted((r["last_time"] for r in rows), reverse=True)
    generated = [r for r in rows if r["session_id"].startswith("demo-run")]
    assert len(generated) == 3 and all(r["invocations"] == 400 for r in generated)
    assert "real-claude-code-subagent" in {r["session_id"] for r in rows}
    assert run("sessions", str(demo_db)).stdout.splitlines()[0].split()[:2] == ["id", "when"]


def test_replay_at_a_sequence_matches_the_history(demo_db: Path) -> None:
    session = run_json("sessions", str(demo_db))["sessions"][0]["session_id"]
    at_ten = run_json("replay", str(demo_db), session, "--at", "10", "--lenient")
    assert at_ten["at"] == 10
    first = at_ten["invocations"][0]["invocation_id"]
    history = run_json("history", str(demo_db), session, first)
    statuses = [(v["sequence"], v["record"]["status"]) for v in history["versions"]]
    assert statuses[0] == (1, "requested")
    expected_now = [status for sequence, status in statuses if sequence <= 10][-1]
    assert at_ten["invocations"][0]["status"] == expected_now


def test_strict_replay_of_a_session_with_illegal_events_fails_clearly(demo_db: Path) -> None:
    rows = run_json("sessions", str(demo_db))["sessions"]
    broken = next((r for r in rows if r["refused_events"]), None)
    if broken is None:
        pytest.fail("the demo sessions should contain an illegal event")
    line = fails("replay", str(demo_db), broken["session_id"], words="--lenient")
    assert "sequence" in line
    lenient = run_json("replay", str(demo_db), broken["session_id"], "--lenient")
    assert len(lenient["quarantined"]) == broken["refused_events"]


def test_diff_lists_changes_between_two_points(demo_db: Path) -> None:
    session = run_json("sessions", str(demo_db))["sessions"][0]["session_id"]
    document = run_json("diff", str(demo_db), session, "5", "40")
    assert document["changes"]
    assert all(c["after"]["invocation_id"] == c["invocation_id"] for c in document["changes"])
    assert run_json("diff", str(demo_db), session, "7", "7")["changes"] == []


def test_import_round_trips_through_jsonl_byte_identically(demo_db: Path, tmp_path: Path) -> None:
    first_log, copy_db, second_log = (
        tmp_path / "a.jsonl",
        tmp_path / "copy.sqlite",
        tmp_path / "b.jsonl",
    )
    total = run_json("import", str(demo_db), str(first_log))["events"]
    assert run_json("import", str(first_log), str(copy_db))["events"] == total
    run("import", str(copy_db), str(second_log))
    assert first_log.read_bytes() == second_log.read_bytes()
    assert len(first_log.read_bytes().splitlines()) == total
    fails("import", str(first_log), str(copy_db), words="overwrite")


def test_validate_reports_violations_with_paths(tmp_path: Path) -> None:
    tools = tmp_path / "tools.json"
    tools.write_text(
        json.dumps(
            [
                {
                    "name": "write_file",
                    "description": "Write",
                    "inputSchema": schemas.REQUIRED_PATH,
                    "tier": "confirm",
                    "capabilities": ["file_write"],
                }
            ]
        )
    )
    assert (
        run_json("validate", str(tools), '{"tool_name": "write_file", "arguments": {"path": "a"}}')[
            "valid"
        ]
        is True
    )
    result = run(
        "validate",
        str(tools),
        '{"tool_name": "write_file", "arguments": {"path": 3}}',
        "--json",
        ok=False,
    )
    assert result.returncode == 1
    document = json.loads(result.stdout)
    assert document["valid"] is False
    assert document["violations"][0]["path"] == "$.path"


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (["sessions", "missing.sqlite"], "no such file"),
        (["replay", "{db}", "no-such-session"], "no session 'no-such-session'"),
        (["replay", "{db}", "{session}", "--at", "999999"], "outside session"),
        (["replay", "{db}", "{session}", "--at", "-1"], "sequences 0.."),
        (["history", "{db}", "{session}", "nobody"], "never requested"),
        (["diff", "{db}", "{session}", "9", "3"], "forward"),
        (["sessions", "postgresql://user:secret@127.0.0.1:1/db"], "cannot use the database"),
        (["sessions", "{notdb}"], "neither an event store nor a transcript of a known format"),
        (["validate", "{notdb}", "{{}}"], "tool definitions"),
    ],
)
def test_errors_are_one_clear_line(
    demo_db: Path, tmp_path: Path, args: list[str], words: str
) -> None:
    session = run_json("sessions", str(demo_db))["sessions"][0]["session_id"]
    not_a_db = tmp_path / "notes.txt"
    not_a_db.write_text("hello, not a database\n" * 100)
    filled = [a.format(db=demo_db, session=session, notdb=not_a_db) for a in args]
    line = fails(*filled, words=words)
    assert "secret" not in line


def test_a_reader_that_stops_early_is_not_an_error(demo_db: Path) -> None:
    session = run_json("sessions", str(demo_db))["sessions"][0]["session_id"]
    command = [sys.executable, "-m", "correx_tools", "replay", str(demo_db), session]
    writer = subprocess.Popen(
        [*command, "--json", "--lenient", "--limit", "0"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
    )
    assert writer.stdout is not None
    assert writer.stdout.read(100).startswith(b'{"session_id"')
    writer.stdout.close()  # as `| head -c 100` does
    _, stderr = writer.communicate(timeout=60)
    assert writer.returncode == 0
    assert stderr == b""


def test_version_is_the_packages() -> None:
    import correx_tools  # noqa: PLC0415 - only for its version

    assert run("--version").stdout.strip() == f"correx-tools {correx_tools.__version__}"


@pytest.mark.parametrize(
    "start",
    [[str(Path(sys.executable).parent / "correx-tools")], [sys.executable, "-m", "correx_tools"]],
    ids=["installed", "python-m"],
)
def test_the_real_process_answers_and_exits_with_the_status(start: list[str]) -> None:
    # The installed script and ``python -m``, as real processes: the version, and a usage
    # error's status 2 (every other test runs the command in the tests' own process).
    version = subprocess.run([*start, "--version"], capture_output=True, text=True, check=False)
    assert (version.returncode, version.stderr) == (0, "")
    assert version.stdout.startswith("correx-tools ")
    usage = subprocess.run([*start, "replay"], capture_output=True, text=True, check=False)
    assert usage.returncode == 2 and usage.stdout == ""
    assert "the following arguments are required" in usage.stderr


def test_tools_converts_an_mcp_listing_to_each_format() -> None:
    listing = str(DATA / "mcp_tools_list.json")
    openai = json.loads(run("tools", listing, "--to", "openai").stdout)
    assert [t["function"]["name"] for t in openai] == [
        "read_text_file",
        "write_file",
        "list_directory",
        "fetch_url",
        "run_command",
    ]
    # write_file lists every property as required and forbids others; fetch_url does not.
    assert [t["function"]["strict"] for t in openai] == [False, True, True, False, False]
    anthropic = json.loads(run("tools", listing, "--to", "anthropic", "--json").stdout)
    assert anthropic[1] == {
        "name": "write_file",
        "description": "Create a new file or overwrite an existing one.",
        "input_schema": {
            "type": "object",
            "properties": {"path": {"type": "string"}, "content": {"type": "string"}},
            "required": ["path", "content"],
            "additionalProperties": False,
        },
    }
    responses = json.loads(
        run("tools", listing, "--to", "openai", "--openai-api", "responses").stdout
    )
    assert responses[0]["name"] == "read_text_file"
    mcp = json.loads(
        run(
            "tools", listing, "--to", "mcp", "--tier", "confirm", "--capability", "file_read"
        ).stdout
    )
    # Given the tier CONFIRM, the tool is no longer exported as read-only: that would
    # bring it back at AUTO on the next import.
    assert mcp[0]["annotations"] == {
        "readOnlyHint": False,
        "destructiveHint": True,
        "openWorldHint": False,
    }
    # run_command has no hints: MCP's defaults are open world, so network access came in.
    assert mcp[4]["annotations"]["openWorldHint"] is True


def test_tools_and_validate_read_each_others_output(tmp_path: Path) -> None:
    converted = tmp_path / "anthropic.json"
    converted.write_text(
        run("tools", str(DATA / "mcp_tools_list.json"), "--to", "anthropic").stdout
    )
    result = run(
        "validate", str(converted), '{"tool_name": "fetch_url", "arguments": {}}', ok=False
    )
    assert result.returncode == 1
    assert '"url" is a required property' in result.stdout
    run(
        "validate",
        str(DATA / "mcp_tools_list.json"),
        '{"name": "run_command", "input": {"command": "ls"}}',
    )


def test_tools_strict_rewrites_a_real_definition_for_openai() -> None:
    snapshot = str(DATA / "mcp" / "get_file_contents.snap")
    plain = json.loads(run("tools", snapshot, "--to", "openai").stdout)[0]["function"]
    strict = json.loads(run("tools", snapshot, "--to", "openai", "--strict").stdout)[0]
    assert plain["strict"] is False and strict["function"]["strict"] is True
    parameters = strict["function"]["parameters"]
    assert set(parameters["required"]) == set(parameters["properties"])
    assert parameters["properties"]["ref"]["type"] == ["string", "null"]


def test_tools_errors_name_the_file_and_json_path(tmp_path: Path) -> None:
    dotted = tmp_path / "dotted.json"
    dotted.write_text(
        json.dumps({"tools": [{"name": "fs.read", "inputSchema": {"type": "object"}}]})
    )
    line = fails("tools", str(dotted), "--to", "openai", words="$.name")
    assert str(dotted) in line and "fs.read" in line
    bad = tmp_path / "bad.json"
    bad.write_text(
        json.dumps(
            [
                {"name": "a", "input_schema": {"type": "object"}},
                {"name": "b", "input_schema": {"type": 7}},
            ]
        )
    )
    fails("tools", str(bad), "--to", "mcp", words="$[1].input_schema.type")


def test_a_corrupt_jsonl_line_is_named_by_file_and_line(demo_db: Path, tmp_path: Path) -> None:
    log = tmp_path / "events.jsonl"
    run("import", str(demo_db), str(log))
    lines = log.read_bytes().splitlines(keepends=True)
    lines[4] = b'{"broken": \n'
    log.write_bytes(b"".join(lines))
    session = json.loads(lines[0])["session_id"]
    line = fails("replay", str(log), session, words=f"{log}:5")
    assert "invalid JSON" in line


def test_a_long_replay_draws_progress_on_a_terminal_only(tmp_path: Path) -> None:
    import os  # noqa: PLC0415 - only this test needs a pseudo-terminal
    import pty  # noqa: PLC0415

    path = tmp_path / "long.sqlite"
    session = next(
        iter(
            run_json("demo", "--db", str(path), "--sessions", "1", "--invocations", "2000")[
                "sessions"
            ]
        )
    )
    # A JSONL log keeps no index: the replay folds it, and shows how far it is.
    log = tmp_path / "long.jsonl"
    run("import", str(path), str(log))
    leader, follower = pty.openpty()
    try:
        command = [sys.executable, "-m", "correx_tools", "replay", str(log), session, "--lenient"]
        process = subprocess.run(
            [*command, "--json"], stdout=subprocess.PIPE, stderr=follower, timeout=300, check=True
        )
        os.close(follower)
        drawn = b""
        while True:
            try:
                chunk = os.read(leader, 65536)
            except OSError:
                break
            if not chunk:
                break
            drawn += chunk
    finally:
        os.close(leader)
    assert json.loads(process.stdout)["at"] > 5_000
    assert b"replaying " + session.encode() in drawn
    assert re.search(rb"\d+/(\d+|\?)", drawn)  # how far it is (rich's count column)
    piped = run("replay", str(log), session, "--lenient", "--json")
    assert piped.stderr == ""


@pytest.mark.slow  # the JSONL round trip is in the quick pass
def test_import_into_postgres_and_back_is_byte_identical(
    demo_db: Path, tmp_path: Path, postgres_dsn: str, postgres_schema: str
) -> None:
    # The CLI uses the default schema; give this test a database of its own instead.
    import psycopg  # noqa: PLC0415

    database = postgres_schema
    with psycopg.connect(postgres_dsn, autocommit=True) as connection:
        connection.execute(f'CREATE DATABASE "{database}"')
    url = postgres_dsn.rsplit("/", 1)[0] + f"/{database}"
    try:
        assert run_json("init-db", url)["ready"] is True
        first_log, second_log = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
        run("import", str(demo_db), str(first_log))
        total = run_json("import", str(first_log), url)["events"]
        assert run_json("import", url, str(second_log))["events"] == total
        assert first_log.read_bytes() == second_log.read_bytes()
        sessions = run_json("sessions", url)["sessions"]
        assert sum(row["events"] for row in sessions) == total
        everything = run_json("replay-all", url, "--workers", "2", "--lenient")
        assert everything["events"] == total
        # stats says the same of a session on every kind of store.
        session = sessions[1]["session_id"]
        answers = [
            run_json("stats", str(where), session, "--at", "500", "--lenient")
            for where in (demo_db, first_log, url)
        ]
        assert answers[0] == answers[1] == answers[2]
    finally:
        with psycopg.connect(postgres_dsn, autocommit=True) as connection:
            connection.execute(f'DROP DATABASE "{database}" WITH (FORCE)')


def test_stats_agrees_with_replay_at_any_point(demo_db: Path) -> None:
    session = run_json("sessions", str(demo_db))["sessions"][0]["session_id"]
    for at in ("300", None):
        where = ["--at", at] if at else []
        stats = run_json("stats", str(demo_db), session, *where, "--lenient")
        replay = run_json("replay", str(demo_db), session, *where, "--lenient", "--limit", "0")
        assert stats["at"] == replay["at"]
        tools = stats["tools"]
        assert sum(row["calls"] for row in tools) == len(replay["invocations"])
        for status in ("completed", "failed", "rejected"):
            assert sum(row[status] for row in tools) == replay["statuses"][status]
        flying = {
            r["invocation_id"]
            for r in replay["invocations"]
            if r["status"] in ("requested", "started")
        }
        assert {r["invocation_id"] for r in stats["in_flight"]} == flying
        for row in tools:
            ran = row["ran_seconds"]
            if ran["max"] is not None:
                assert ran["p50"] <= ran["p95"] <= ran["max"]
    text = run("stats", str(demo_db), session, "--lenient", "--wide").stdout
    assert "queued p50/p95/max" in text and "read_file" in text


def test_replay_all_reports_each_session(demo_db: Path) -> None:
    lenient = run_json("replay-all", str(demo_db), "--workers", "2", "--lenient")
    assert len(lenient["sessions"]) == 3 + 1  # the generated ones and the real transcript
    assert all(row["error"] is None for row in lenient["sessions"])
    strict = run("replay-all", str(demo_db), "--workers", "2", "--json", ok=False)
    document = json.loads(strict.stdout)
    assert strict.returncode == (1 if any(row["error"] for row in document["sessions"]) else 0)
    assert sum(row["events"] or 0 for row in document["sessions"]) <= lenient["events"]
