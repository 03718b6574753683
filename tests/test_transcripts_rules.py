"""The rule table of ``docs/transcripts.md``, row by row, on the smallest transcripts that
show each signal (the samples show most rows; these are the ones they do not)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from correx_tools import EventReplayer, InMemoryEventStore, ToolProjector
from correx_tools.shell.transcripts.importing.importing import import_transcript

T0 = "2025-11-18T06:42:10.250Z"


def codex(output: str) -> list[dict[str, Any]]:
    meta = {"timestamp": T0, "type": "session_meta", "payload": {"id": "s", "cwd": "/r"}}
    asked = {"type": "function_call", "name": "shell_command", "arguments": "{}", "call_id": "c"}
    call = {"timestamp": T0, "type": "response_item", "payload": asked}
    result = {
        "timestamp": T0,
        "type": "response_item",
        "payload": {"type": "function_call_output", "call_id": "c", "output": output},
    }
    return [meta, call, result]


def gemini(status: str, response: dict[str, Any]) -> list[dict[str, Any]]:
    header = {"sessionId": "g", "projectHash": "p", "startTime": T0}
    call = {
        "id": "c",
        "name": "run_shell_command",
        "args": {},
        "status": status,
        "result": [{"functionResponse": {"id": "c", "response": response}}],
    }
    return [header, {"id": "m", "timestamp": T0, "type": "gemini", "toolCalls": [call]}]


def mcp(*answer: dict[str, Any]) -> list[dict[str, Any]]:
    call = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "tools/call",
        "params": {"name": "run", "arguments": {}},
    }
    return [call, *answer]


def cline(answer: str) -> list[dict[str, Any]]:
    return [
        {"role": "user", "content": [{"type": "text", "text": "<environment_details>x"}]},
        {
            "role": "assistant",
            "content": [
                {
                    "type": "text",
                    "text": "<execute_command>\n<command>make</command>\n</execute_command>",
                }
            ],
        },
        {"role": "user", "content": [{"type": "text", "text": answer}]},
    ]


def opencode(state: dict[str, Any], tool: str = "bash") -> dict[str, Any]:
    part = {"id": "p", "type": "tool", "callID": "c", "tool": tool, "state": state}
    return {
        "info": {"id": "ses_x", "time": {"created": 1}},
        "messages": [{"info": {"id": "m", "time": {"created": 1}}, "parts": [part]}],
    }


ROWS = [
    ("codex", codex("Exit code: 3\nWall time: 0 seconds\nOutput:\n"), "completed", 3),
    ("codex", codex("This action was rejected due to unacceptable risk."), "rejected", None),
    ("codex", codex("aborted"), "failed", None),
    ("codex", codex("patch rejected by user"), "rejected", None),
    (
        "gemini",
        gemini("error", {"error": "params must have required property 'x'"}),
        "rejected",
        None,
    ),
    ("gemini", gemini("error", {"error": "disk full"}), "failed", None),
    ("gemini", gemini("scheduled", {}), "requested", None),
    (
        "mcp",
        mcp({"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "boom"}}),
        "failed",
        None,
    ),
    (
        "mcp",
        mcp(
            {"jsonrpc": "2.0", "method": "notifications/cancelled", "params": {"requestId": 1}},
            {"jsonrpc": "2.0", "id": 1, "result": {"content": []}},
        ),
        "completed",
        0,
    ),
    (
        "mcp",
        mcp(
            [
                {"jsonrpc": "2.0", "id": 2, "method": "ping"},
                {"jsonrpc": "2.0", "id": 1, "result": {"content": [], "isError": True}},
            ]
        ),
        "failed",
        None,
    ),
    ("cline", cline("[execute_command for 'make'] Result:\nCommand executed."), "completed", 0),
    ("cline", cline("[Response interrupted by user]"), "requested", None),
    (
        "cline",
        cline(
            "[execute_command for 'make'] Result:\nThe tool execution failed with the "
            "following error:\n<error>\nspawn ENOENT\n</error>"
        ),
        "failed",
        None,
    ),
    (
        "opencode",
        opencode({"status": "running", "input": {}, "time": {"start": 2}}),
        "started",
        None,
    ),
    ("opencode", opencode({"status": "pending", "input": {}}), "requested", None),
    (
        "opencode",
        opencode(
            {
                "status": "error",
                "input": {},
                "error": "Tool execution aborted",
                "time": {"start": 2, "end": 3},
            }
        ),
        "failed",
        None,
    ),
    (
        "opencode",
        opencode(
            {
                "status": "completed",
                "input": {"tool": "x", "error": "bad"},
                "output": "The arguments provided to the tool are invalid: bad",
            },
            tool="invalid",
        ),
        "rejected",
        None,
    ),
]


@pytest.mark.parametrize(("kind", "content", "status", "exit_code"), ROWS)
def test_each_row_of_the_rule_table(
    kind: str, content: Any, status: str, exit_code: int | None, tmp_path: Path
) -> None:
    lines = kind in ("codex", "gemini", "mcp")
    path = tmp_path / ("t.jsonl" if lines else "t.json")
    text = "".join(json.dumps(r) + "\n" for r in content) if lines else json.dumps(content)
    path.write_text(text, encoding="utf-8")
    store = InMemoryEventStore()
    done = import_transcript(path, store).unwrap()
    [record] = (
        EventReplayer(store).replay(done.session_id, ToolProjector()).unwrap().state.records()
    )
    assert record.status.value == status
    if exit_code is not None:
        assert record.receipt is not None and record.receipt.exit_code == exit_code
    if status == "rejected":
        assert record.started_at is None
