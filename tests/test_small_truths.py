"""The last claims made without knowing, each held here (on real transcripts): the demo's
real session keeps its conversation and its own tools are judged; a trace carries the
model, the tokens and a non-zero exit's error; a browser that cannot open says so; a
temporary cache promises nothing of later opens; ``compare`` reads transcripts through a
cache it is told of.
"""

from __future__ import annotations

import json
import threading
import webbrowser
from pathlib import Path
from typing import Any

import pytest

from correx_tools.shell.cli.output.browser import open_in_browser

from .commands import correx
from .serving import demo_store

TRANSCRIPTS = Path(__file__).parent / "data" / "transcripts"
CLAUDE = TRANSCRIPTS / "claude-code" / "session_4d5611e5_subagent_a2898e3.jsonl"
CODEX = next((TRANSCRIPTS / "codex").glob("rollout-*.jsonl"))
GOOSE = TRANSCRIPTS / "goose"
REAL = "real-claude-code-subagent"


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    return demo_store(tmp_path_factory.mktemp("truths"), 1, 60)


def answer(*argv: str) -> Any:
    return json.loads(correx(*argv, "--json", check=True).stdout)


# -- the demo ------------------------------------------------------------------------------


def test_the_demos_real_session_keeps_its_conversation(demo: Path) -> None:
    said = correx("history", str(demo), REAL, "toolu_01TfDS8U", check=True).stdout
    assert "the session records no prompt or words before it" not in said
    assert "what led to it:\n  prompt (sequence 2" in said
    assert answer("stats", str(demo), REAL)["tokens"]["total"]["total"] > 0


def test_the_demos_own_tools_are_judged_not_only_scanned(demo: Path) -> None:
    audited = answer("audit", str(demo))
    assert audited["unknown_tools"] == {}  # run_tests and search_code are in the table


# -- a trace -------------------------------------------------------------------------------


def spans(source: Path, session: str) -> dict[str, dict[str, Any]]:
    """The spans ``export`` writes, by their call's own id (the session's: ``session``)."""
    lines = correx("export", str(source), session, check=True).stdout.splitlines()
    found = {}
    for line in lines:
        for resource in json.loads(line)["resourceSpans"]:
            for scope in resource["scopeSpans"]:
                for span in scope["spans"]:
                    attributes = {a["key"]: a["value"] for a in span["attributes"]}
                    call = attributes.get("gen_ai.tool.call.id", {}).get("stringValue", "")
                    found[call.rpartition("/")[2] or "session"] = {**span, "attributes": attributes}
    return found


def test_a_trace_carries_the_model_and_each_calls_tokens() -> None:
    found = spans(CLAUDE, "4d")
    tokens = answer("stats", str(CLAUDE), "4d")["tokens"]
    share = {c["invocation_id"].rpartition("/")[2]: c["tokens"] for c in tokens["calls"]}
    for call, span in found.items():
        if call == "session":
            continue
        usage = share[call]
        attributes = span["attributes"]
        assert attributes["gen_ai.request.model"] == {"stringValue": "claude-sonnet-4-5-20250929"}
        assert attributes["gen_ai.usage.output_tokens"] == {"intValue": str(usage["output"])}
        prompt = usage["input"] + usage["cache_read"] + usage["cache_write"]
        assert attributes["gen_ai.usage.input_tokens"] == {"intValue": str(prompt)}
    total = found["session"]["attributes"]
    assert total["gen_ai.usage.output_tokens"] == {"intValue": str(tokens["total"]["output"])}


def test_a_call_that_exited_non_zero_is_an_error_in_the_trace() -> None:
    made = spans(CODEX, "019a")["call_k3Mk"]  # make test, exit 2
    assert made["attributes"]["error.type"] == {"stringValue": "tool_exited_nonzero"}
    assert made["status"] == {"code": 2, "message": "exit 2"}
    assert spans(CODEX, "019a")["call_kAMk"]["status"] == {}  # make test again, exit 0


def test_a_collector_that_is_not_there_is_one_line_without_a_written_line_break() -> None:
    said = correx("export", str(CODEX), "019a", "--to", "otlp",
                  "--endpoint", "http://127.0.0.1:9/v1/traces", "--timeout", "1")  # fmt: skip
    if "needs the OpenTelemetry SDK" in said.stderr:
        pytest.skip("the otel extra is not installed")
    assert said.returncode == 1 and said.stderr.count("\n") == 1
    assert "[U+000A]" not in said.stderr and "; name the collector's traces URL" in said.stderr


# -- a browser, a cache, compare -----------------------------------------------------------------


def test_no_browser_to_open_is_said(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("BROWSER", "false")  # a browser that fails at once
    monkeypatch.setattr(webbrowser, "_tryorder", None)  # read BROWSER again
    told = threading.Event()
    open_in_browser("http://127.0.0.1:1/", told.set)
    assert told.wait(60)


def test_a_temporary_cache_promises_nothing_of_later_opens(tmp_path: Path) -> None:
    said = correx("sessions", str(TRANSCRIPTS), "--no-cache", check=True).stderr
    [reading] = [line for line in said.splitlines() if " transcript files " in line]
    assert "a temporary cache, gone when the command ends" in reading
    assert "later opens read only what changed" not in reading
    kept = correx("sessions", str(TRANSCRIPTS), "--cache", str(tmp_path / "c.sqlite"),
                  check=True).stderr  # fmt: skip
    assert "later opens read only what changed" in kept


def test_compare_reads_transcripts_through_the_cache_it_is_told_of(tmp_path: Path) -> None:
    cache = tmp_path / "compare.sqlite"
    told = answer("compare", str(GOOSE), "20251118_154210", "20251118_2", "--cache", str(cache))
    assert cache.exists() and told["a"]["calls"] == told["b"]["calls"] == 13
    again = answer("compare", str(GOOSE), "20251118_154210", "20251118_2", "--no-cache")
    assert again == told
    # One cache holds one SOURCE's transcripts: a second SOURCE is refused in one line.
    a, b = GOOSE / "20251118_154210.jsonl", GOOSE / "20251118_2.json"
    both = correx("compare", str(a), "2025", "2025", "--with", str(b), "--cache", str(cache))
    assert both.returncode == 1 and both.stderr.count("\n") == 1
    assert "--cache names one SOURCE's cache" in both.stderr
