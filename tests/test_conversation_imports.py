"""The conversation read from real transcripts: prompts, the assistant's words, reasoning,
models, and token totals that are a sum over the file's own usage records."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from returns.result import Success

from correx_tools import (
    AssistantText,
    InMemoryEventStore,
    Prompt,
    Reasoning,
    SessionId,
    SQLiteEventStore,
    TokenUsage,
    Usage,
    conversation_of,
    import_transcript,
)
from correx_tools.shell.transcripts.cache.cache import TranscriptCache
from correx_tools.shell.transcripts.cache.manifest import RULES
from correx_tools.shell.transcripts.importing.options import ImportOptions

from .test_cli import run
from .transcript_samples import DATA

CLAUDE = sorted((DATA / "claude-code").glob("*.jsonl"))
CODEX = next((DATA / "codex").glob("rollout-*.jsonl"))


def said(path: Path, **options: Any) -> list[object]:
    store = InMemoryEventStore()
    done = import_transcript(path, store, ImportOptions(**options)).unwrap()
    found = (conversation_of(stored.event) for stored in store.read(done.session_id))
    return [message for message in found if message is not None]


def total(messages: list[object]) -> TokenUsage:
    usage = TokenUsage()
    for message in messages:
        if isinstance(message, Usage):
            usage += message.usage
    return usage


def claude_usage_records(path: Path) -> tuple[TokenUsage, set[str]]:
    """The file's own usage: one record per message id (each of a message's records
    repeats it), summed; and the models that wrote them."""
    seen: dict[str, dict[str, int]] = {}
    models = set()
    for line in path.read_text(encoding="utf-8").splitlines():
        record = json.loads(line)
        message = record.get("message")
        if record.get("type") == "assistant" and isinstance(message, dict) and "usage" in message:
            seen.setdefault(message["id"], message["usage"])
            models.add(message["model"])
    usage = TokenUsage()
    for counts in seen.values():
        usage += TokenUsage(
            input=counts["input_tokens"],
            output=counts["output_tokens"],
            cache_read=counts["cache_read_input_tokens"],
            cache_write=counts["cache_creation_input_tokens"],
        )
    return usage, models


def test_claude_code_tokens_are_the_sum_of_the_files_usage_records_once_a_message() -> None:
    for path in CLAUDE:
        messages = said(path)
        expected, models = claude_usage_records(path)
        assert total(messages) == expected, path.name
        assert expected.total > 0
        assert {m.model for m in messages if isinstance(m, Usage)} == models


def test_claude_code_prompts_words_and_reasoning_are_read_in_order() -> None:
    short = said(DATA / "claude-code" / "short_two_rejections.jsonl")
    assert short[0] == Prompt(text="mix phx.server doesnt seem to start")
    # The thinking block, then the text block, of the message that asked for the calls.
    kinds = [type(m).__name__ for m in short]
    assert kinds == ["Prompt", "Usage", "Reasoning", "AssistantText"]
    assert isinstance(short[2], Reasoning) and short[2].text.startswith("The user is having")
    assert short[3] == AssistantText(
        text="Let me check the project structure and try running the server to see the error.",
        model="claude-opus-4-6",
    )
    # "[Request interrupted by user for tool use]" is Claude Code's own note: no prompt.
    assert [m for m in short if isinstance(m, Prompt)] == [short[0]]


def test_codex_tokens_are_its_last_running_total_and_its_prompts_are_the_users() -> None:
    records = [json.loads(line) for line in CODEX.read_text(encoding="utf-8").splitlines()]
    counts = [
        r["payload"]["info"]["total_token_usage"]
        for r in records
        if r["type"] == "event_msg" and r["payload"]["type"] == "token_count"
    ][-1]
    messages = said(CODEX)
    usage = total(messages)
    assert usage.input + usage.cache_read == counts["input_tokens"]
    assert usage.cache_read == counts["cached_input_tokens"]
    assert usage.output == counts["output_tokens"]
    typed = [
        r["payload"]["message"]
        for r in records
        if r["type"] == "event_msg" and r["payload"]["type"] == "user_message"
    ]
    assert [m.text for m in messages if isinstance(m, Prompt)] == typed
    assert (
        AssistantText(
            text="Push declined; tagging the release locally instead.", model="gpt-5.1-codex"
        )
        in messages
    )


def test_the_library_flag_and_the_commands_option_leave_the_conversation_out(
    tmp_path: Path,
) -> None:
    assert said(CLAUDE[0]) and not said(CLAUDE[0], conversation=False)
    dest = tmp_path / "s.sqlite"
    run("import-transcript", str(CODEX), str(dest), "--no-conversation")
    with SQLiteEventStore(dest, read_only=True) as store:
        [session] = store.sessions()
        assert not [s for s in store.read(session) if conversation_of(s.event)]
    # The same file with its conversation, imported over it: refused, saying why.
    result = run("import-transcript", str(CODEX), str(dest), ok=False)
    assert "without its conversation" in result.stderr and "--no-conversation" in result.stderr


def test_a_cache_made_by_earlier_rules_or_without_the_conversation_is_read_again(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "folder"
    folder.mkdir()
    (folder / "rollout.jsonl").write_bytes(CODEX.read_bytes())
    path = tmp_path / "cache.sqlite"

    def talk(cache: TranscriptCache) -> int:
        session = SessionId(cache.store.sessions()[0])
        return sum(1 for s in cache.store.read(session) if conversation_of(s.event))

    cache = TranscriptCache(path, [folder], conversation=False)
    assert cache.look().read == 1 and talk(cache) == 0
    cache.close()
    # What the rules before the conversation made: no conversation, and their stamp.
    with sqlite3.connect(path) as connection:
        connection.execute(
            "UPDATE correx_transcript_files SET stamp = replace(stamp, ?, ?)",
            (f"{RULES} without conversation:", "rules 2:"),
        )
    cache = TranscriptCache(path, [folder])
    look = cache.look()
    assert look.read == 1 and len(look.rewritten) == 1 and talk(cache) == 4
    assert cache.look().read == 0
    cache.close()
    cache = TranscriptCache(path, [folder], conversation=False)
    assert cache.look().read == 1 and talk(cache) == 0
    cache.close()


@pytest.mark.parametrize("bad", ["false", "0.0", '""', "[]"])
def test_a_codex_count_of_another_type_is_refused_naming_its_line(tmp_path: Path, bad: str) -> None:
    # A count is a whole number; only null (or no key) is 0, as in every other format.
    text = CODEX.read_text("utf-8")
    lines = text.splitlines()
    line = next(n for n, record in enumerate(lines, start=1) if '"total_token_usage":{' in record)
    lines[line - 1] = lines[line - 1].replace('"output_tokens":', f'"output_tokens":{bad},"x":', 1)
    path = tmp_path / CODEX.name
    path.write_text("\n".join(lines) + "\n", "utf-8")
    failed = import_transcript(path, InMemoryEventStore())
    assert not isinstance(failed, Success), failed
    said = str(failed.failure())
    assert f"line {line}:" in said and "output_tokens" in said, said
