"""Large transcripts of every format the importer reads, generated for the benchmarks.

Each writer makes a file of about ``lines`` lines (JSON Lines formats: that many
records; JSON documents: that many messages, one a line; Aider: that many
Markdown lines) whose calls look like the samples': a command or a read, its
output of a few hundred bytes, one call in ten ending otherwise (a non-zero
exit, an error, a refusal), as each format writes it.
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Callable, Iterator
from datetime import timedelta
from pathlib import Path
from typing import Any

from .sessions import START

OUTPUT = "test kana::tests::hiragana_basic ... ok\n" * 6


def _ms(number: int) -> int:
    return int((START + timedelta(seconds=number)).timestamp() * 1000)


def _iso(number: int) -> str:
    return (START + timedelta(seconds=number)).isoformat().replace("+00:00", "Z")


def _write_lines(path: Path, records: Iterator[object]) -> Path:
    with path.open("w", encoding="utf-8") as out:
        for record in records:
            out.write(json.dumps(record, ensure_ascii=False) + "\n")
    return path


def codex(path: Path, lines: int) -> Path:
    """A Codex rollout: a session_meta, then a function_call and its output per call."""

    def records() -> Iterator[object]:
        yield {"timestamp": _iso(0), "type": "session_meta",
               "payload": {"id": "bench", "timestamp": _iso(0), "cwd": "/repo"}}  # fmt: skip
        for n in range(lines // 2):
            call = f"call_{n:08d}"
            yield {"timestamp": _iso(n), "type": "response_item", "payload": {
                "type": "function_call", "name": "shell_command", "call_id": call,
                "arguments": json.dumps({"command": f"cargo test --lib m{n % 50}"})}}  # fmt: skip
            code = 2 if n % 10 == 7 else 0
            yield {"timestamp": _iso(n), "type": "response_item", "payload": {
                "type": "function_call_output", "call_id": call,
                "output": f"Exit code: {code}\nWall time: 0.4 seconds\nOutput:\n{OUTPUT}"}}  # fmt: skip

    return _write_lines(path, records())


def _gemini_message(n: int, status: str) -> dict[str, Any]:
    call = {"id": f"run_shell_command-{n}", "name": "run_shell_command",
            "args": {"command": f"make test m{n % 50}"}, "status": status,
            "timestamp": _iso(n)}  # fmt: skip
    if status != "executing":
        call["result"] = [{"functionResponse": {"id": call["id"], "name": "run_shell_command",
                           "response": {"output": f"Output: {OUTPUT}\nExit Code: 0"}}}]  # fmt: skip
    return {"id": f"m{n}", "timestamp": _iso(n), "type": "gemini", "content": "",
            "toolCalls": [call]}  # fmt: skip


def gemini_lines(path: Path, lines: int) -> Path:
    """A Gemini CLI chat: each message written twice, as its call runs and once it is done."""

    def records() -> Iterator[object]:
        yield {"sessionId": "bench", "projectHash": "0" * 64, "startTime": _iso(0)}
        for n in range(lines // 2):
            yield _gemini_message(n, "executing")
            yield _gemini_message(n, "error" if n % 10 == 7 else "success")

    return _write_lines(path, records())


def gemini_document(path: Path, lines: int) -> Path:
    """The older .json form: one object, a message a line."""
    messages = (_gemini_message(n, "success") for n in range(lines))
    return _document(path, '{"sessionId": "bench", "projectHash": "0", "messages": [', messages)


def mcp(path: Path, lines: int) -> Path:
    """MCP traffic as a proxy logs it: each message wrapped with its time and direction."""

    def records() -> Iterator[object]:
        for n in range(lines // 2):
            yield {"ts": _iso(n), "direction": "client->server", "message": {
                "jsonrpc": "2.0", "id": n, "method": "tools/call",
                "params": {"name": "read_file", "arguments": {"path": f"src/m{n % 50}.rs"}}}}  # fmt: skip
            yield {"ts": _iso(n), "direction": "server->client", "message": {
                "jsonrpc": "2.0", "id": n, "result": {"content": [{"type": "text", "text": OUTPUT}],
                                                      "isError": n % 10 == 7}}}  # fmt: skip

    return _write_lines(path, records())


def _goose_messages(count: int) -> Iterator[dict[str, Any]]:
    seen = {"userVisible": True, "agentVisible": True}
    for n in range(count // 2):
        call = f"toolu_{n:08d}"
        yield {"role": "assistant", "created": 1763448130 + n, "content": [
            {"type": "text", "text": "Running the tests of the module."},
            {"type": "toolRequest", "id": call, "toolCall": {"status": "success", "value": {
                "name": "developer__shell", "arguments": {"command": f"make m{n % 50}"}}}}],
            "metadata": seen}  # fmt: skip
        yield {"role": "user", "created": 1763448130 + n, "content": [
            {"type": "toolResponse", "id": call, "toolResult": {"status": "success", "value": {
                "content": [{"type": "text", "text": OUTPUT}], "isError": n % 10 == 7}}}],
            "metadata": seen}  # fmt: skip


def goose_legacy(path: Path, lines: int) -> Path:
    """An older Goose session file: a header line, then a message a line."""
    header = {"working_dir": "/repo", "description": "bench"}
    return _write_lines(path, iter([header, *_goose_messages(lines)]))


def goose_export(path: Path, lines: int) -> Path:
    """A goose session export: one object, a message a line."""
    return _document(path, '{"id": "bench", "working_dir": "/repo", "conversation": [',
                     _goose_messages(lines))  # fmt: skip


def goose_database(path: Path, lines: int) -> Path:
    """Goose's sessions.db holding one session of ``lines`` messages."""
    connection = sqlite3.connect(path)
    connection.executescript(
        "CREATE TABLE sessions (id TEXT PRIMARY KEY, name TEXT, working_dir TEXT, "
        "created_at TIMESTAMP);"
        "CREATE TABLE messages (id INTEGER PRIMARY KEY AUTOINCREMENT, session_id TEXT, "
        "role TEXT, content_json TEXT, created_timestamp INTEGER, timestamp TIMESTAMP);"
        "INSERT INTO sessions VALUES ('bench', 'bench', '/repo', '2026-01-01 00:00:00');"
    )
    connection.executemany(
        "INSERT INTO messages (session_id, role, content_json, created_timestamp, timestamp) "
        "VALUES ('bench', ?, ?, ?, '2026-01-01 00:00:00')",
        ((m["role"], json.dumps(m["content"]), m["created"]) for m in _goose_messages(lines)),
    )
    connection.commit()
    connection.close()
    return path


def cline(path: Path, lines: int) -> Path:
    """A Cline task history (native tool_use): one object, a message a line."""

    def messages() -> Iterator[object]:
        for n in range(lines // 2):
            call = f"toolu_{n:08d}"
            yield {"role": "assistant", "ts": _ms(n), "content": [
                {"type": "tool_use", "id": call, "name": "execute_command",
                 "input": {"command": f"make m{n % 50}", "requires_approval": "false"}}]}  # fmt: skip
            text = (f"Command failed with exit code 2.\nOutput:\n{OUTPUT}" if n % 10 == 7
                    else f"Command executed successfully (exit code 0).\nOutput:\n{OUTPUT}")  # fmt: skip
            yield {"role": "user", "ts": _ms(n), "content": [
                {"type": "tool_result", "tool_use_id": call,
                 "content": f"[execute_command for 'make m{n % 50}'] Result:\n{text}"}]}  # fmt: skip

    return _document(path, "[", messages(), close="]")


def opencode(path: Path, lines: int) -> Path:
    """An opencode export: one object, an assistant message with its tool part a line."""

    def messages() -> Iterator[object]:
        for n in range(lines):
            state = {"status": "completed", "input": {"command": f"make m{n % 50}"},
                     "output": OUTPUT, "metadata": {"exit": 2 if n % 10 == 7 else 0},
                     "time": {"start": _ms(n), "end": _ms(n) + 300}}  # fmt: skip
            yield {"info": {"id": f"msg_{n}", "role": "assistant", "time": {"created": _ms(n)}},
                   "parts": [{"id": f"prt_{n}", "type": "tool", "callID": f"toolu_{n:08d}",
                              "tool": "bash", "state": state}]}  # fmt: skip

    return _document(path, '{"info": {"id": "ses_bench", "time": {"created": 0}}, "messages": [',
                     messages())  # fmt: skip


def aider(path: Path, lines: int) -> Path:
    """An Aider history: a request, a reply with one edit block, and Aider's output (ten
    lines a call)."""
    with path.open("w", encoding="utf-8") as out:
        out.write("# aider chat started at 2026-01-01 00:00:00\n\n")
        for n in range(lines // 10):
            outcome = "> Skipping edits to" if n % 10 == 7 else "> Applied edit to"
            out.write(
                f"#### fix module {n}  \n\nsrc/m{n % 50}.py\n```python\n<<<<<<< SEARCH\n"
                f"x = {n}\n=======\nx = {n + 1}\n>>>>>>> REPLACE\n```\n\n"
                f"> Tokens: 2.9k sent, 141 received.  \n{outcome} src/m{n % 50}.py  \n\n"
            )
    return path


def _document(path: Path, opening: str, items: Iterator[object], close: str = "]}") -> Path:
    with path.open("w", encoding="utf-8") as out:
        out.write(opening + "\n")
        for number, item in enumerate(items):
            out.write(("" if number == 0 else ",\n") + json.dumps(item, ensure_ascii=False))
        out.write("\n" + close + "\n")
    return path


WRITERS: dict[str, tuple[str, Callable[[Path, int], Path]]] = {
    "codex": ("rollout.jsonl", codex),
    "gemini-cli (.jsonl)": ("chat.jsonl", gemini_lines),
    "gemini-cli (.json)": ("chat.json", gemini_document),
    "mcp": ("traffic.jsonl", mcp),
    "goose (JSONL)": ("session.jsonl", goose_legacy),
    "goose (export)": ("export.json", goose_export),
    "goose (sessions.db)": ("sessions.db", goose_database),
    "cline": ("api_conversation_history.json", cline),
    "opencode": ("ses_bench.json", opencode),
    "aider": ("history.md", aider),
}
"""Each new format's generator, by the benchmark row's name, with the file name it writes."""
