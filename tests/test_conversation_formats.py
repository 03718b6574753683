"""The conversation read from every other format's real samples: prompts found by their
words, the words before a call in its lead-up, token totals that are a sum over the file's
own usage records (computed here, independently of the reader), and the tool fold the same
with the conversation as without it."""

from __future__ import annotations

import json
import re
import sqlite3
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from correx_tools import (
    AssistantText,
    InMemoryEventStore,
    Prompt,
    Reasoning,
    SessionId,
    TokenUsage,
    ToolInvocationRequestedEvent,
    ToolProjector,
    Usage,
    conversation_of,
    fold_events,
    import_transcript,
)
from correx_tools.core.replay.lead_up import LeadUp
from correx_tools.core.replay.spending import spending
from correx_tools.core.replay.talk_summary import TalkSummary
from correx_tools.shell.replay.lead_up import lead_up_in
from correx_tools.shell.transcripts.cache.cache import TranscriptCache
from correx_tools.shell.transcripts.cache.manifest import RULES
from correx_tools.shell.transcripts.importing.importing import import_transcripts
from correx_tools.shell.transcripts.importing.options import ImportOptions

from .test_conversation_imports import said, total
from .transcript_samples import DATA

GEMINI = DATA / "gemini-cli" / "session-2025-11-18T06-42-8c2d41e7.jsonl"
GEMINI_JSON = GEMINI.with_suffix(".json")


def imported(path: Path, **options: Any) -> tuple[InMemoryEventStore, SessionId]:
    store = InMemoryEventStore()
    done = import_transcript(path, store, ImportOptions(**options)).unwrap()
    return store, done.session_id


def lead_up_of(path: Path, call_id: str) -> LeadUp:
    """What led to the call ``call_id`` (the end of its invocation id) of the file's session."""
    store, session = imported(path)
    for stored in store.read(session):
        event = stored.event
        if isinstance(event, ToolInvocationRequestedEvent) and event.invocation_id.endswith(
            f"/{call_id}"
        ):
            return lead_up_in(store, session, stored.sequence)
    raise AssertionError(f"no call {call_id}")


def words(led: LeadUp) -> list[tuple[str, str]]:
    return [(w.kind, w.text) for w in led.before]


def prompts(messages: list[object]) -> list[str]:
    return [m.text for m in messages if isinstance(m, Prompt)]


def models(messages: list[object]) -> set[str | None]:
    return {m.model for m in messages if isinstance(m, AssistantText | Reasoning | Usage)}


def records(path: Path) -> Iterator[dict[str, Any]]:
    for line in path.read_text(encoding="utf-8").splitlines():
        yield json.loads(line)


# --- Gemini CLI -------------------------------------------------------------------------


def gemini_messages(path: Path) -> list[dict[str, Any]]:
    """The chat's messages as its writer left them: each id's last copy, where it first
    appeared, less what a rewind dropped (the ``.json`` form is the list itself)."""
    if path.suffix == ".json":
        listed: list[dict[str, Any]] = json.loads(path.read_text(encoding="utf-8"))["messages"]
        return listed
    kept: dict[str, dict[str, Any]] = {}
    for record in list(records(path))[1:]:
        if "$rewindTo" in record:
            ids = list(kept)
            if record["$rewindTo"] in kept:
                for dropped in ids[ids.index(record["$rewindTo"]) :]:
                    del kept[dropped]
        elif "id" in record:
            kept[record["id"]] = record
    return list(kept.values())


@pytest.mark.parametrize("path", [GEMINI, GEMINI_JSON], ids=["jsonl", "json"])
def test_gemini_tokens_are_the_sum_of_each_messages_last_counts(path: Path) -> None:
    messages = said(path)
    counted = [m["tokens"] for m in gemini_messages(path) if m.get("tokens")]
    assert counted  # the sample records usage
    usage = total(messages)
    # Gemini's own total is its prompt (cached included), output, thoughts and tool tokens.
    assert usage.total == sum(t["total"] for t in counted)
    assert usage.cache_read == sum(t["cached"] for t in counted)
    assert usage.output == sum(t["output"] + t["thoughts"] for t in counted)
    assert usage.cache_write == 0
    assert models(messages) == {"gemini-2.5-pro"}
    assert sum(isinstance(m, Usage) for m in messages) == len(counted)


def test_gemini_prompts_words_and_thoughts_are_read_and_lead_to_the_calls() -> None:
    messages = said(GEMINI)
    asked = [
        t["text"] for m in gemini_messages(GEMINI) if m["type"] == "user" for t in m["content"]
    ]
    # The rewound prompt ("πρώτα σβήσε το target/") is gone, like its call.
    assert prompts(messages) == asked and len(asked) == 2
    assert not any("target/" in p for p in prompts(messages))
    assert Reasoning(text="Plan\nReproduce, then fix.", model="gemini-2.5-pro") in messages
    led = lead_up_of(GEMINI, "cargo_check-1763448139-4")
    assert led.prompt is not None and "athina" in led.prompt.text
    assert words(led) == [
        ("reasoning", "Plan\nReproduce, then fix."),
        ("text", "The accented ή is not mapped. Fixing it."),
    ]
    assert said(GEMINI_JSON) == messages


# --- OpenAI chat and Anthropic Messages lists ----------------------------------------------

OPENAI = DATA / "openai-chat" / "marshmallow-1867_history.json"
ANTHROPIC = DATA / "anthropic-messages" / "subagent_a2898e3_messages.json"


def summary(path: Path) -> TalkSummary:
    store, session = imported(path)
    return TalkSummary().taking(stored.event for stored in store.read(session))


def test_an_openai_chats_prompt_and_words_lead_to_its_calls_and_it_records_no_tokens() -> None:
    messages = said(OPENAI)
    listed = json.loads(OPENAI.read_text(encoding="utf-8"))
    users = [m["content"] for m in listed if m["role"] == "user"]
    assert prompts(messages) == users and "TimeDelta serialization precision" in users[0]
    # The system prompt is not the user's.
    assert not any(p.startswith("SETTING:") for p in prompts(messages))
    led = lead_up_of(OPENAI, "call_9diWc1DYm4RLmPfHgIaP2wd")
    assert led.prompt is not None and "TimeDelta serialization precision" in led.prompt.text
    assert words(led) == [("text", listed[2]["content"])]
    # A list the loop kept records no tokens and no model: none, never 0.
    assert not [m for m in messages if isinstance(m, Usage)] and models(messages) == {None}
    assert summary(OPENAI).tokens is None


def test_an_anthropic_lists_prompt_and_words_lead_to_its_calls() -> None:
    messages = said(ANTHROPIC)
    listed = json.loads(ANTHROPIC.read_text(encoding="utf-8"))
    assert prompts(messages) == [listed[0]["content"]]
    led = lead_up_of(ANTHROPIC, "toolu_01HaEX6WGRyK8yccb6knr31H")
    assert led.prompt is not None and "SessionLive" in led.prompt.text
    assert words(led) == [("text", listed[1]["content"][0]["text"])]
    assert summary(ANTHROPIC).tokens is None


def test_messages_stored_whole_give_their_model_and_tokens_once_a_message(tmp_path: Path) -> None:
    """A list of the API's own answers: Anthropic's usage once per message id (the same
    message twice counts once), OpenAI's cached prompt tokens read as cache read."""
    usage = {"input_tokens": 5, "output_tokens": 7, "cache_read_input_tokens": 11,
             "cache_creation_input_tokens": 13}  # fmt: skip
    answer = {"role": "assistant", "id": "msg_1", "model": "claude-opus-4-6", "usage": usage,
              "content": [{"type": "thinking", "thinking": "look first"},
                          {"type": "tool_use", "id": "t1", "name": "Read",
                           "input": {}}]}  # fmt: skip
    anthropic = tmp_path / "anthropic.json"
    again = {**answer, "content": [{"type": "text", "text": "Reading it."}]}  # the same message
    anthropic.write_text(json.dumps([{"role": "user", "content": "read it"}, answer, again]))
    messages = said(anthropic)
    assert total(messages) == TokenUsage(input=5, output=7, cache_read=11, cache_write=13)
    assert Reasoning(text="look first", model="claude-opus-4-6") in messages
    openai = tmp_path / "openai.json"
    call = {"id": "c1", "type": "function", "function": {"name": "ls", "arguments": "{}"}}
    openai.write_text(json.dumps([
        {"role": "user", "content": [{"type": "text", "text": "list it"}]},
        {"role": "assistant", "content": None, "tool_calls": [call], "model": "gpt-4.1",
         "reasoning_content": "ls shows it",
         "usage": {"prompt_tokens": 100, "completion_tokens": 9,
                   "prompt_tokens_details": {"cached_tokens": 60}}},
    ]))  # fmt: skip
    messages = said(openai)
    assert total(messages) == TokenUsage(input=40, output=9, cache_read=60)
    assert prompts(messages) == ["list it"] and models(messages) == {"gpt-4.1"}


# --- Cline and Roo Code -----------------------------------------------------------------

CLINE_NATIVE = DATA / "cline" / "tasks" / "1763448130250" / "api_conversation_history.json"
CLINE_XML = DATA / "cline" / "tasks" / "1763448130251" / "api_conversation_history.json"
TASK = "「Αθήνα」が athina にならない。greek.rs を直して docs/使い方.md を書いて"
FEEDBACK = "main には force push しないで"


@pytest.mark.parametrize("path", [CLINE_NATIVE, CLINE_XML], ids=["native", "xml"])
def test_a_cline_tasks_prompts_are_the_task_and_the_users_feedback(path: Path) -> None:
    messages = said(path)
    assert prompts(messages) == [TASK, FEEDBACK]
    # Cline's own texts (environment details, a tool's result) are no prompt.
    assert not any("environment_details" in p or "Result:" in p for p in prompts(messages))
    after = lead_up_of(path, "toolu_01Tr11aZ8kQw" if path == CLINE_NATIVE else "message-23")
    assert after.prompt is not None and after.prompt.text == FEEDBACK
    if path == CLINE_XML:
        # This task has no ui_messages.json beside it, where Cline keeps the tokens: it
        # records none, which is never 0.
        assert not [m for m in messages if isinstance(m, Usage)] and summary(path).tokens is None


def cline_requests(task: Path) -> list[dict[str, Any]]:
    """The token counts of each request a task's ui_messages.json records, read here."""
    listed = json.loads((task / "ui_messages.json").read_text(encoding="utf-8"))
    infos = [json.loads(m["text"]) for m in listed if m.get("say") == "api_req_started"]
    return [info for info in infos if "tokensIn" in info or "tokensOut" in info]


def test_a_cline_tasks_tokens_are_the_sum_of_its_ui_messages_requests() -> None:
    requests = cline_requests(CLINE_NATIVE.parent)
    assert len(requests) == 13  # twelve replies, and one attempt that failed while streaming
    assert total(said(CLINE_NATIVE)) == TokenUsage(
        input=sum(r["tokensIn"] for r in requests),
        output=sum(r["tokensOut"] for r in requests),
        cache_read=sum(r["cacheReads"] for r in requests),
        cache_write=sum(r["cacheWrites"] for r in requests),
    )
    assert models(said(CLINE_NATIVE)) == {"claude-sonnet-4-5"}
    store, session = imported(CLINE_NATIVE)
    spent = spending((e.sequence, e.event) for e in store.read(session))
    # Each reply's tokens go to the call it made; the failed attempt's to none.
    assert len(spent.calls) == 12
    failed = next(r for r in requests if r.get("cancelReason") == "streaming_failed")
    assert spent.unattributed is not None
    assert spent.unattributed.total == TokenUsage(
        input=failed["tokensIn"],
        output=failed["tokensOut"],
        cache_read=failed["cacheReads"],
        cache_write=failed["cacheWrites"],
    )
    first = next(r for r in requests if r["tokensOut"] == 113)
    assert spent.calls[next(i for i in spent.calls if i.endswith("/toolu_01Tr00aZ8kQw"))].total == (
        TokenUsage(input=first["tokensIn"], output=113, cache_write=first["cacheWrites"])
    )
    assert not said(CLINE_NATIVE, conversation=False)


def cline_task(tmp_path: Path, *ui: object) -> Path:
    """A copy of the native task with ``ui`` as its ui_messages.json."""
    task = tmp_path / "tasks" / "1763448130250"
    task.mkdir(parents=True)
    history = task / "api_conversation_history.json"
    history.write_bytes(CLINE_NATIVE.read_bytes())
    (task / "ui_messages.json").write_text(json.dumps(list(ui)), encoding="utf-8")
    return history


def request(index: object, **info: object) -> dict[str, object]:
    return {"ts": 1, "type": "say", "say": "api_req_started", "text": json.dumps(info),
            "conversationHistoryIndex": index}  # fmt: skip


def test_a_cline_request_with_no_counts_or_no_place_gives_no_tokens(tmp_path: Path) -> None:
    history = cline_task(
        tmp_path,
        request(0, request="still streaming"),
        request(None, tokensIn=5, tokensOut=7),  # written before Cline kept the index
        request(2, tokensIn=1, tokensOut=2, modelId="claude-opus-4-1"),
    )
    usages = [m for m in said(history) if isinstance(m, Usage)]
    assert [(u.usage, u.model) for u in usages] == [
        (TokenUsage(input=1, output=2), "claude-opus-4-1")
    ]


@pytest.mark.parametrize(
    ("ui", "message"),
    [
        ("[", "ui_messages.json beside it"),
        ('{"say": "api_req_started"}', "expected a list of messages, found dict"),
        (json.dumps([request(0, tokensIn=-1)]), "$[0].text: tokensIn must be a whole number"),
        (json.dumps([request(0, tokensOut="9")]), "tokensOut must be a whole number"),
        (json.dumps([{**request(0), "text": 5}]), "$[0].text: expected the request's JSON"),
        (json.dumps([{**request(0), "text": "{oops"}]), "ui_messages.json beside it, $[0].text"),
    ],
)
def test_a_damaged_ui_messages_file_is_refused_naming_it(
    tmp_path: Path, ui: str, message: str
) -> None:
    history = cline_task(tmp_path)
    (history.parent / "ui_messages.json").write_text(ui, encoding="utf-8")
    store = InMemoryEventStore()
    error = import_transcript(history, store).failure()
    assert message in str(error) and str(history) in str(error)
    assert store.sessions() == ()


def test_a_cline_calls_lead_up_is_its_messages_words_or_its_thinking() -> None:
    native = lead_up_of(CLINE_NATIVE, "toolu_01Tr00aZ8kQw")
    assert native.prompt is not None and native.prompt.text == TASK
    assert words(native) == [("text", "Let me look at the crate.")]
    assert models(said(CLINE_NATIVE)) == {"claude-sonnet-4-5"}
    xml = lead_up_of(CLINE_XML, "message-1")
    assert xml.prompt is not None and xml.prompt.text == TASK
    # The thinking element is reasoning, the tool element is the call, not words.
    assert words(xml) == [("reasoning", "次のステップ。")]


# --- OpenHands --------------------------------------------------------------------------

OPENHANDS = DATA / "openhands" / "runtime_test_basic.json"
OPENHANDS_BENCH = DATA / "openhands" / "multi_swe_bench_ponylang__ponyc-4595.json"


def openhands_responses(path: Path) -> dict[str, dict[str, Any]]:
    """Each model response of the history once, by its id (every action of a response
    that asked for several calls carries it)."""
    document = json.loads(path.read_text(encoding="utf-8"))
    events = document["history"] if isinstance(document, dict) else document
    found: dict[str, dict[str, Any]] = {}
    for event in events:
        metadata = event.get("tool_call_metadata")
        if metadata and "action" in event:
            found.setdefault(metadata["model_response"]["id"], metadata["model_response"])
    return found


@pytest.mark.parametrize("path", [OPENHANDS, OPENHANDS_BENCH], ids=["runtime", "bench"])
def test_openhands_tokens_are_the_sum_of_each_model_responses_usage(path: Path) -> None:
    responses = openhands_responses(path).values()
    usage = total(said(path))
    assert usage.output == sum(r["usage"]["completion_tokens"] for r in responses) > 0
    # LiteLLM's prompt tokens hold those read from and written to a cache.
    prompt = sum(r["usage"]["prompt_tokens"] for r in responses)
    assert usage.input + usage.cache_read + usage.cache_write == prompt
    assert usage.cache_read == sum(r["usage"].get("cache_read_input_tokens", 0) for r in responses)
    written = sum(r["usage"].get("cache_creation_input_tokens", 0) for r in responses)
    assert usage.cache_write == written
    assert models(said(path)) - {None} == {r["model"] for r in responses}


def test_openhands_tokens_agree_with_the_runs_own_total() -> None:
    document = json.loads(OPENHANDS_BENCH.read_text(encoding="utf-8"))
    counted = document["metrics"]["accumulated_token_usage"]
    usage = total(said(OPENHANDS_BENCH))
    assert usage.input + usage.cache_read + usage.cache_write == counted["prompt_tokens"]
    assert usage.output == counted["completion_tokens"]


def test_an_openhands_prompt_and_thought_lead_to_its_call() -> None:
    messages = said(OPENHANDS)
    assert prompts(messages) == [
        "Please create a simple 2048 game. No need to run it. "
        "Please finish the interaction after your finish coding."
    ]
    led = lead_up_of(OPENHANDS, "toolu_017nBp7UfiGqyrA7j77HgtFP")
    assert led.prompt is not None and "2048 game" in led.prompt.text
    [(kind, text)] = words(led)
    assert kind == "text" and text.startswith("I'll help you create a simple 2048 game")
    bench = said(OPENHANDS_BENCH)
    # The system prompt and the recall of the workspace are OpenHands' own.
    assert len(prompts(bench)) == 1 and prompts(bench)[0].startswith("<uploaded_files>")
    led = lead_up_of(OPENHANDS_BENCH, "toolu_02")
    assert words(led)[0][1].startswith("The repository is a C project")


# --- SWE-agent --------------------------------------------------------------------------

SWE_CTF = DATA / "swe-agent" / "ctf_i_got_id_demo.traj"
SWE_CALLS = DATA / "swe-agent" / "marshmallow-1867_function_calling.traj"


@pytest.mark.parametrize("path", [SWE_CTF, SWE_CALLS], ids=["ctf", "function-calling"])
def test_a_swe_agent_task_is_its_prompt_and_each_thought_leads_to_its_action(path: Path) -> None:
    document = json.loads(path.read_text(encoding="utf-8"))
    messages = said(path)
    task = next(m["content"] for m in document["history"] if m["role"] == "user")
    # The task only: the later user messages are the environment's observations.
    assert prompts(messages) == [task]
    thoughts = [step["thought"] for step in document["trajectory"]]
    assert [m.text for m in messages if isinstance(m, AssistantText)] == thoughts
    call = "step-2" if path == SWE_CTF else "call_m6a0mcd6137L21vgVmR0DQaU"
    led = lead_up_of(path, call)
    assert led.prompt is not None and led.prompt.text == task
    assert words(led) == [("text", thoughts[1])]
    # A replayed demonstration counts no tokens: none recorded, never 0.
    stats = document["info"]["model_stats"]
    assert stats["tokens_sent"] == stats["tokens_received"] == 0
    assert not [m for m in messages if isinstance(m, Usage)] and summary(path).tokens is None


def test_a_swe_agent_runs_tokens_are_its_model_stats(tmp_path: Path) -> None:
    document = json.loads(SWE_CTF.read_text(encoding="utf-8"))
    stats = {"tokens_sent": 120_000, "tokens_received": 3_456, "api_calls": 21}
    document["info"]["model_stats"].update(stats)
    path = tmp_path / "run.traj"
    path.write_text(json.dumps(document), encoding="utf-8")
    messages = said(path)
    assert total(messages) == TokenUsage(input=120_000, output=3_456)
    assert isinstance(messages[-1], Usage)  # the run's, after its last step


# --- Goose ------------------------------------------------------------------------------

GOOSE = DATA / "goose" / "20251118_2.json"
GOOSE_LINES = DATA / "goose" / "20251118_154210.jsonl"
GOOSE_DB = DATA / "goose" / "sessions.db"


@pytest.mark.parametrize("path", [GOOSE, GOOSE_LINES], ids=["export", "jsonl"])
def test_goose_tokens_are_the_sessions_own_accumulated_counts(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    session = json.loads(text) if path.suffix == ".json" else json.loads(text.splitlines()[0])
    messages = said(path)
    expected = TokenUsage(
        input=session["accumulated_input_tokens"], output=session["accumulated_output_tokens"]
    )
    assert total(messages) == expected and expected.total == session["accumulated_total_tokens"]
    assert sum(isinstance(m, Usage) for m in messages) == 1  # Goose counts per session
    led = lead_up_of(path, "toolu_00Kx7mVb3R")
    assert led.prompt is not None and led.prompt.text.startswith("「Αθήνα」が athina にならない")
    assert words(led) == [("text", "まずリポジトリを見ます。")]


def test_a_goose_database_gives_each_sessions_tokens_or_says_it_records_none(
    tmp_path: Path,
) -> None:
    copy = tmp_path / "sessions.db"
    copy.write_bytes(GOOSE_DB.read_bytes())

    def tokens() -> dict[str, TokenUsage | None]:
        store = InMemoryEventStore()
        for result in import_transcripts(copy, store):
            result.unwrap()
        return {
            s: TalkSummary().taking(e.event for e in store.read(s)).tokens for s in store.sessions()
        }

    with sqlite3.connect(copy) as connection:
        rows = connection.execute(
            "SELECT id, accumulated_input_tokens, accumulated_output_tokens FROM sessions"
        ).fetchall()
    connection.close()
    assert tokens() == {row[0]: TokenUsage(input=row[1], output=row[2]) for row in rows}
    with sqlite3.connect(copy) as connection:  # a row whose counts are empty
        connection.execute(
            "UPDATE sessions SET accumulated_input_tokens = NULL, accumulated_output_tokens = "
            "NULL, input_tokens = NULL, output_tokens = NULL WHERE id = '20251118_3'"
        )
    connection.close()
    assert tokens()["20251118_3"] is None


# --- OpenCode ---------------------------------------------------------------------------

OPENCODE = DATA / "opencode" / "ses_4f8e21c07ffdR2kLq9mT3xYb7w.json"


def opencode_tokens(document: dict[str, Any]) -> TokenUsage:
    """Each finished step's tokens, and a message's own where none of its steps finished."""
    usage = TokenUsage()
    for message in document["messages"]:
        steps = [p["tokens"] for p in message["parts"] if p["type"] == "step-finish"]
        if message["info"]["role"] == "assistant":
            for t in steps or [message["info"]["tokens"]]:
                cache = t["cache"]
                output = t["output"] + t["reasoning"]
                usage += TokenUsage(input=t["input"], output=output, cache_read=cache["read"],
                                    cache_write=cache["write"])  # fmt: skip
    return usage


def test_opencode_tokens_are_the_sum_of_its_steps_and_its_prompt_leads_to_the_calls() -> None:
    document = json.loads(OPENCODE.read_text(encoding="utf-8"))
    messages = said(OPENCODE)
    assert total(messages) == opencode_tokens(document)
    assert total(messages).total > 0 and models(messages) == {"claude-sonnet-4-5"}
    [typed] = [p["text"] for p in document["messages"][0]["parts"]]
    assert prompts(messages) == [typed]
    led = lead_up_of(OPENCODE, "toolu_01Oc05Wn4Jd")
    assert led.prompt is not None and led.prompt.text == typed


def test_opencode_text_and_reasoning_parts_lead_to_the_calls_after_them(tmp_path: Path) -> None:
    document = json.loads(OPENCODE.read_text(encoding="utf-8"))
    parts = document["messages"][1]["parts"]
    base = {"sessionID": document["info"]["id"], "messageID": "msg_b31f07a20001As"}
    parts[1:1] = [
        {**base, "id": "prt_r", "type": "reasoning", "text": "List the crate first."},
        {**base, "id": "prt_t", "type": "text", "text": "Let me look at the crate."},
        {**base, "id": "prt_s", "type": "text", "text": "<file>...</file>", "synthetic": True},
    ]
    path = tmp_path / OPENCODE.name
    path.write_text(json.dumps(document), encoding="utf-8")
    led = lead_up_of(path, "toolu_01Oc00Wn4Jd")
    assert words(led) == [("reasoning", "List the crate first."),
                          ("text", "Let me look at the crate.")]  # fmt: skip


# --- Aider ------------------------------------------------------------------------------

AIDER = DATA / "aider" / "synth" / ".aider.chat.history.md"
AIDER_REAL = DATA / "aider" / "real" / "hello-world-flask.md"


def aider_count(said: str) -> int:
    """Aider's rounded count (``2.9k``, ``141``) as the number it stands for."""
    if said.endswith("k"):
        return round(float(said[:-1]) * 1000)
    return int(said)


def test_aider_tokens_are_the_sum_of_its_tokens_lines() -> None:
    lines = AIDER.read_text(encoding="utf-8").splitlines()
    sent = received = 0
    for line in lines:
        if line.startswith("> Tokens: "):
            for number, what in re.findall(r"([0-9.]+k?) (sent|received)", line):
                if what == "sent":
                    sent += aider_count(number)
                else:
                    received += aider_count(number)
    messages = said(AIDER)
    assert total(messages) == TokenUsage(input=sent, output=received) and sent > 0
    assert models(messages) - {None} == {"anthropic/claude-sonnet-4-5"}
    assert sum(isinstance(m, Usage) for m in messages) == sum(
        line.startswith("> Tokens: ") for line in lines
    )


def test_aider_prompts_and_replies_lead_to_the_edits() -> None:
    lines = AIDER.read_text(encoding="utf-8").splitlines()
    messages = said(AIDER)
    asked = [line[5:].strip() for line in lines if line.startswith("#### ")]
    # /run is a call of its own, not a prompt.
    assert prompts(messages) == [a for a in asked if not a.startswith("/run ")]
    first = next(n for n, line in enumerate(lines, 1) if line.startswith("<<<<<<< SEARCH"))
    led = lead_up_of(AIDER, f"edit-{first}")
    assert led.prompt is not None and led.prompt.text == asked[0]
    [(kind, text)] = words(led)
    assert kind == "text" and text.startswith("The accented eta `ή` falls through")
    # Aider's own message on a block that failed to match is not the model's.
    replies = [m.text for m in messages if isinstance(m, AssistantText)]
    assert not any("SearchReplaceNoExactMatch" in r or "must exactly match" in r for r in replies)
    assert any(r.startswith("There is no iota arm yet") for r in replies)


def test_a_real_aider_history_records_no_tokens_and_its_intro_is_no_reply() -> None:
    messages = said(AIDER_REAL)
    assert prompts(messages)[0] == (
        "make a flask app with a /hello endpoint that returns hello world"
    )
    assert isinstance(messages[0], Prompt)  # the website's introduction is nobody's words
    assert not [m for m in messages if isinstance(m, Usage)] and summary(AIDER_REAL).tokens is None


def test_aider_tokens_lines_of_other_releases_read_back(tmp_path: Path) -> None:
    path = tmp_path / ".aider.chat.history.md"
    path.write_text(
        "# aider chat started at 2024-05-01 10:00:00\n\n"
        "> Model: gpt-4o with diff edit format  \n\n"
        "#### /add app.py  \n\n#### /ask what does\n#### app.py do?  \n\n"
        "It serves one page.\n\n"
        "> Tokens: 6,445 sent, 1.2k cache write, 20k cache hit, 1,013 received. "
        "Cost: $0.02 message, $0.02 session.  \n",
        encoding="utf-8",
    )
    messages = said(path)
    # A command is no prompt; the rest of /ask is, its lines joined.
    assert prompts(messages) == ["what does\napp.py do?"]
    assert AssistantText(text="It serves one page.", model="gpt-4o") in messages
    usage = TokenUsage(input=6445, output=1013, cache_read=20_000, cache_write=1200)
    assert total(messages) == usage


def test_a_cache_the_rules_before_these_formats_made_is_read_again(tmp_path: Path) -> None:
    """Rules 3 read no conversation of a Gemini chat: its cache is read again once."""
    folder = tmp_path / "chats"
    folder.mkdir()
    (folder / GEMINI.name).write_bytes(GEMINI.read_bytes())
    path = tmp_path / "cache.sqlite"

    def talk(cache: TranscriptCache) -> int:
        session = SessionId(cache.store.sessions()[0])
        return sum(1 for s in cache.store.read(session) if conversation_of(s.event))

    cache = TranscriptCache(path, [folder], conversation=False)
    assert cache.look().read == 1 and talk(cache) == 0
    cache.close()
    with sqlite3.connect(path) as connection:  # what rules 3 wrote: no Gemini conversation
        connection.execute(
            "UPDATE correx_transcript_files SET stamp = replace(stamp, ?, ?)",
            (f"{RULES} without conversation:", "rules 3:"),
        )
    connection.close()
    cache = TranscriptCache(path, [folder])
    look = cache.look()
    assert look.read == 1 and len(look.rewritten) == 1 and talk(cache) > 0
    assert cache.look().read == 0
    cache.close()


# --- every format -----------------------------------------------------------------------

FORMATS = [
    GEMINI,
    GEMINI_JSON,
    OPENAI,
    ANTHROPIC,
    CLINE_NATIVE,
    CLINE_XML,
    OPENHANDS,
    OPENHANDS_BENCH,
    SWE_CTF,
    SWE_CALLS,
    GOOSE,
    GOOSE_LINES,
    OPENCODE,
    AIDER,
    AIDER_REAL,
]  # fmt: skip


@pytest.mark.parametrize("path", FORMATS, ids=lambda p: p.parent.name + "/" + p.name[-12:])
def test_the_fold_of_a_sample_is_the_same_with_its_conversation(path: Path) -> None:
    with_talk, session = imported(path)
    without, _ = imported(path, conversation=False)
    talked = list(with_talk.read(session))
    assert any(conversation_of(s.event) for s in talked)
    plain = fold_events(ToolProjector(), list(without.read(session))).unwrap()
    mixed = fold_events(ToolProjector(), talked).unwrap()
    assert plain.state == mixed.state


def test_gemini_thoughts_that_are_not_a_list_are_passed_over(tmp_path: Path) -> None:
    # A message's parts of another shape are passed over, its thoughts too: a number there
    # is not a traceback.
    lines = []
    for line in GEMINI.read_text("utf-8").splitlines():
        record = json.loads(line)
        if record.get("type") == "gemini":
            record["thoughts"] = 5
        lines.append(json.dumps(record))
    path = tmp_path / GEMINI.name
    path.write_text("\n".join(lines) + "\n", "utf-8")
    store, session = imported(path)
    kinds = {type(conversation_of(s.event)) for s in store.read(session)}
    assert AssistantText in kinds and Reasoning not in kinds


def test_an_openhands_action_that_is_not_a_name_says_nothing(tmp_path: Path) -> None:
    # An event's `action` is the file's to write: a list there is no prompt, not a
    # traceback (a list cannot be looked up among the names).
    events = json.loads(OPENHANDS_BENCH.read_text("utf-8"))
    history = events["history"] if isinstance(events, dict) else events
    user = next(e for e in history if e.get("source") == "user" and e.get("action") == "message")
    user["action"] = ["message"]
    path = tmp_path / OPENHANDS_BENCH.name
    path.write_text(json.dumps(events), "utf-8")
    store, session = imported(path)
    assert not any(isinstance(conversation_of(s.event), Prompt) for s in store.read(session))
