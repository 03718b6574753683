"""What a new user met in their first hour, each fixed and held here (issue: the write side).

The command runs on real files (in this process, as `commands.correx` runs it); the
library's values are used as a user's script would use them.
"""

from __future__ import annotations

import json
import shlex
import traceback
from pathlib import Path

import pytest
from returns.result import Failure

from correx_tools import (
    AppendErrorKind,
    InMemoryToolRegistry,
    SessionId,
    SQLiteEventStore,
    ToolExecutionStartedEvent,
    ToolRequest,
    Valid,
    tool_definitions,
)

from .commands import Ran, correx
from .strategies import requested

TOOLS = [
    {
        "name": "read_file",
        "description": "Read a file.",
        "parameters": {
            "type": "object",
            "properties": {"path": {"type": "string"}},
            "required": ["path"],
        },
    }
]


def run(
    *args: str,
    stdin: str | None = None,
    cwd: Path | None = None,
    env: dict[str, str] | None = None,
) -> Ran:
    """The command (``env`` set over this environment for the call); never a traceback."""
    result = correx(*args, stdin=stdin, cwd=cwd, env=env)
    assert "Traceback" not in result.stderr, result.stderr
    return result


@pytest.fixture(scope="module")
def two_session_demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    directory = tmp_path_factory.mktemp("demo")
    # Two sessions of the default size: the second carries planted faults, the first never does.
    done = run("demo", "--db", "demo.sqlite", "--sessions", "2", cwd=directory)
    assert done.returncode == 0, done.stderr
    return directory, done.stdout


def test_valid_has_no_violations_and_reads_naturally_in_a_test() -> None:
    registry = InMemoryToolRegistry.of(*tool_definitions(TOOLS).unwrap()).unwrap()
    good = registry.validate(ToolRequest(tool_name="read_file", arguments={"path": "a"}))
    bad = registry.validate(ToolRequest(tool_name="read_file", arguments={}))
    assert isinstance(good, Valid) and good.violations == () and good
    assert bad.violations and not bad


def test_unwrap_of_a_failure_shows_the_message_in_the_traceback(tmp_path: Path) -> None:
    with SQLiteEventStore(tmp_path / "s.sqlite") as store:
        store.append(SessionId("s"), [requested("a")], expected_sequence=0).unwrap()
        # The same script run twice: the second append is a conflict that says what it saw.
        again = store.append(SessionId("s"), [requested("b")], expected_sequence=0)
        assert isinstance(again, Failure)
        assert again.failure().kind is AppendErrorKind.CONFLICT
        message = str(again.failure())
        assert "expected it at sequence 0, but the store holds 1 event" in message
        assert "written before" in message
        with pytest.raises(Exception) as raised:  # noqa: PT011 - returns' own error type
            again.unwrap()
        shown = "".join(traceback.format_exception(raised.value))
        assert "AppendError: " + message in shown


def test_the_demo_hints_work_on_the_session_it_wrote(two_session_demo: tuple[Path, str]) -> None:
    directory, output = two_session_demo
    hints = output.split("explore it yourself:\n", 1)[1].strip().splitlines()
    assert len(hints) >= 6
    assert any("real-claude-code-subagent" in hint for hint in hints)
    for hint in hints:
        words = shlex.split(hint.split("#")[0])
        assert words[0] == "correx-tools"
        done = run(*words[1:], cwd=directory)
        assert done.returncode == 0, (hint, done.stderr)


def test_the_demo_says_which_sessions_carry_planted_faults(
    two_session_demo: tuple[Path, str],
) -> None:
    directory, output = two_session_demo
    table = output.split("\n\n", 1)[0]
    assert "planted faults" in table
    assert "demo-run01-session-1   7,462  none (replays strictly)\n" in table
    assert "demo-run01-session-2   7,455  " in table and not table.endswith("strictly)")
    # The clean session replays strictly: no --lenient needed.
    done = run("replay", "demo.sqlite", "demo-run01-session-1", cwd=directory)
    assert done.returncode == 0, done.stderr
    document = json.loads(run("demo", "--db", "other.sqlite", "--sessions", "3",
                              "--invocations", "5", "--json", cwd=directory).stdout)  # fmt: skip
    assert document["planted_faults"] == {f"demo-run01-session-{n}": 0 for n in (1, 2, 3)}


def test_a_negative_limit_is_refused(two_session_demo: tuple[Path, str]) -> None:
    directory, _ = two_session_demo
    done = run("replay", "demo.sqlite", "demo-run01-session-1", "--limit", "-3", cwd=directory)
    assert done.returncode == 2
    assert "--limit: -3 is negative" in done.stderr


def test_history_mentions_the_refused_events_of_its_invocation(tmp_path: Path) -> None:
    path = tmp_path / "refused.sqlite"
    with SQLiteEventStore(path) as store:
        store.append(
            SessionId("s"),
            [requested("a"), ToolExecutionStartedEvent(invocation_id="a"),  # type: ignore[arg-type]
             ToolExecutionStartedEvent(invocation_id="a")],  # type: ignore[arg-type]
            expected_sequence=0,
        ).unwrap()  # fmt: skip
    done = run("history", str(path), "s", "a")
    assert done.returncode == 0, done.stderr
    assert "1 event about it refused by the lifecycle:" in done.stdout
    assert "sequence 3: ToolExecutionStartedEvent" in done.stdout
    document = json.loads(run("history", str(path), "s", "a", "--json").stdout)
    assert [r["sequence"] for r in document["refused"]] == [3]


def test_replay_all_that_fails_says_so_on_stderr_with_the_lenient_hint(
    two_session_demo: tuple[Path, str],
) -> None:
    directory, _ = two_session_demo
    done = run("replay-all", "demo.sqlite", cwd=directory)
    assert done.returncode == 1
    # Of the two generated sessions and the imported real one, only one fails.
    assert "replayed 2 of 3 sessions" in done.stdout, done.stdout
    assert "error: demo-run01-session-2:" in done.stderr
    assert "--lenient" in done.stderr
    lenient = run("replay-all", "demo.sqlite", "--lenient", cwd=directory)
    assert lenient.returncode == 0 and lenient.stderr == ""


def test_a_dash_reads_standard_input(tmp_path: Path) -> None:
    tools = json.dumps(TOOLS)
    converted = run("tools", "-", "--to", "mcp", stdin=tools)
    assert converted.returncode == 0, converted.stderr
    assert json.loads(converted.stdout)[0]["name"] == "read_file"
    (tmp_path / "tools.json").write_text(tools)
    request = json.dumps({"tool_name": "read_file", "arguments": {"path": "x"}})
    checked = run("validate", str(tmp_path / "tools.json"), "-", stdin=request)
    assert checked.returncode == 0, checked.stderr
    broken = run("tools", "-", "--to", "mcp", stdin="{not json")
    assert broken.returncode == 1
    assert broken.stderr.startswith("correx-tools tools: error: standard input:")
