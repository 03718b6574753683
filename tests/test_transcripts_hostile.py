"""Transcripts that are not what their format says: every reader answers with a
`TranscriptError` naming the file and what is wrong, never an exception, and a
session is written whole or not at all.

Each example takes a sample, puts an arbitrary JSON value somewhere in it (a
record, a field, a list item), and imports the result.
"""

from __future__ import annotations

import json
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from returns.result import Success

from correx_tools import EventReplayer, InMemoryEventStore, ToolProjector
from correx_tools.shell.transcripts.errors import TranscriptError
from correx_tools.shell.transcripts.importing.importing import import_transcripts
from correx_tools.shell.transcripts.importing.options import ImportOptions

from .transcript_samples import DATA, samples

JSON_SAMPLES = [s for s in samples() if s.path.suffix in (".json", ".jsonl")]
AIDER = [s for s in samples() if s.format == "aider"]

WORDS = ["success", "error", "tool_use", "toolRequest", "tools/call", "function_call", "2.0"]
values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(max_size=20) | st.sampled_from(WORDS),
    lambda inner: st.lists(inner, max_size=3)
    | st.dictionaries(st.text(max_size=8), inner, max_size=3),
    max_leaves=8,
)  # fmt: skip


def paths(value: Any, at: tuple[Any, ...] = (), depth: int = 0) -> list[tuple[Any, ...]]:
    """Every place in a JSON value (to a depth), as the keys and indexes that lead there."""
    found = [at]
    if depth < 6:
        children = (
            value.items()
            if isinstance(value, dict)
            else enumerate(value)
            if isinstance(value, list)
            else []
        )
        for key, child in children:
            found += paths(child, (*at, key), depth + 1)
    return found


def replaced(value: Any, at: tuple[Any, ...], new: Any) -> Any:
    if not at:
        return new
    copy = dict(value) if isinstance(value, dict) else list(value)
    copy[at[0]] = replaced(value[at[0]], at[1:], new)
    return copy


def imported_whole_or_not_at_all(path: Path) -> None:
    store = InMemoryEventStore()
    results = import_transcripts(path, store)
    for result in results:
        if isinstance(result, Success):
            done = result.unwrap()
            replay = EventReplayer(store).replay(done.session_id, ToolProjector()).unwrap()
            assert len(replay.state) == done.invocations
        else:
            error = result.failure()
            assert isinstance(error, TranscriptError) and str(error).startswith(str(path))
    if not any(isinstance(result, Success) for result in results):
        assert store.sessions() == ()


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data(), index=st.integers(0, len(JSON_SAMPLES) - 1), new=values)
def test_any_value_anywhere_in_a_json_sample_is_imported_or_named(
    data: st.DataObject, index: int, new: Any
) -> None:
    sample = JSON_SAMPLES[index]
    text = sample.path.read_text(encoding="utf-8")
    lines = sample.path.suffix == ".jsonl"
    document = (
        [json.loads(line) for line in text.splitlines() if line.strip()]
        if lines
        else json.loads(text)
    )
    at = data.draw(st.sampled_from(paths(document)))
    changed = replaced(document, at, new)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / sample.path.name
        if lines and isinstance(changed, list):
            path.write_text(
                "".join(json.dumps(r, ensure_ascii=False) + "\n" for r in changed), encoding="utf-8"
            )
        else:
            path.write_text(json.dumps(changed, ensure_ascii=False), encoding="utf-8")
        imported_whole_or_not_at_all(path)


AIDER_LINES = ["#### /run make", "#### fix it", "> Applied edit to src/greek.rs", "```", "```rust",
               "<<<<<<< SEARCH", "=======", ">>>>>>> REPLACE", "src/greek.rs", "> ",
               "> Run shell command? (Y)es/(N)o [Yes]: ", "> Skipping edits to README.md",
               "# aider chat started at 2025-13-40 99:99:99",
               "# aider chat started at 2025-11-18 15:42:10",
               "> # 1 SEARCH/REPLACE block failed to match!", "---", "<div>",
               "plain words"]  # fmt: skip


@settings(max_examples=200, deadline=None)
@given(
    sample=st.sampled_from(AIDER),
    edits=st.lists(
        st.tuples(st.floats(0, 1), st.sampled_from(AIDER_LINES) | st.text(max_size=30)), max_size=6
    ),
    cut=st.floats(0, 1),
)
def test_any_lines_in_an_aider_history_are_imported_or_named(
    sample: Any, edits: list[tuple[float, str]], cut: float
) -> None:
    lines = sample.path.read_text(encoding="utf-8").split("\n")
    for where, line in edits:
        lines.insert(int(where * len(lines)), line)
    text = "\n".join(lines)
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / "repo" / ".aider.chat.history.md"
        path.parent.mkdir()
        path.write_text(text[: int(len(text) * cut)], encoding="utf-8")
        imported_whole_or_not_at_all(path)


def _json_lines(path: Path, change: Any) -> str:
    """The sample's lines with ``change(records)`` applied to the parsed records."""
    records = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    change(records)
    return "".join(json.dumps(record) + "\n" for record in records)


def _document(path: Path, change: Any) -> str:
    document = json.loads(path.read_text(encoding="utf-8"))
    change(document)
    return json.dumps(document)


def _set(index: int, key: str, value: Any) -> Any:
    return lambda items: items[index].__setitem__(key, value)


# Each found by a fuzzer that put odd values into the samples: each raised a Python
# exception (an overflow, an unhashable id) instead of naming the place.
ODD_VALUES = {
    "a time past the year 9999 in UTC": (
        "claude-code/short_two_rejections.jsonl", _json_lines,
        _set(1, "timestamp", "9999-12-31T23:59:59-05:00"), "outside the years 1 to 9999",
    ),
    "a time before the year 1 in UTC": (
        "codex/rollout-2025-11-18T15-42-10-019a95d1-3c7e-7b22-a4f0-6e1d2c9b8a53.jsonl",
        _json_lines, _set(4, "timestamp", "0001-01-01T00:00:00+05:00"),
        "outside the years 1 to 9999",
    ),
    "an OpenHands observation caused by a list": (
        "openhands/runtime_test_basic.json", _document, _set(2, "cause", [1]),
        "$[2].cause: must be a number or a string, not a list",
    ),
    "an OpenHands action whose id is an object": (
        "openhands/runtime_test_basic.json", _document, _set(1, "id", {"n": 1}),
        "$[1].id: must be a number or a string, not a dict",
    ),
    "a chat's tool message with tool_call_ids true": (
        "openai-chat/marshmallow-1867_history.json", _document, _set(3, "tool_call_ids", True),
        "$[3].tool_call_ids: tool_call_ids must be a list",
    ),
    "a Gemini rewind to an object": (
        "gemini-cli/session-2025-11-18T06-42-8c2d41e7.jsonl", _json_lines,
        lambda records: records.insert(3, {"$rewindTo": {"id": "x"}}),
        "line 4: $rewindTo: $rewindTo must be a non-empty string",
    ),
}  # fmt: skip


@pytest.mark.parametrize("case", ODD_VALUES)
def test_odd_values_found_by_fuzzing_are_named(case: str, tmp_path: Path) -> None:
    sample, write, change, words = ODD_VALUES[case]
    source = DATA / sample
    path = tmp_path / source.name
    path.write_text(write(source, change), encoding="utf-8")
    store = InMemoryEventStore()
    [result] = import_transcripts(path, store)
    error = result.failure()
    assert isinstance(error, TranscriptError)
    assert words in str(error), str(error)
    assert store.sessions() == ()


def test_a_line_that_is_not_utf8_is_a_damaged_line_not_a_foreign_file(tmp_path: Path) -> None:
    source = DATA / "goose" / "20251118_154210.jsonl"
    lines = source.read_bytes().splitlines(keepends=True)
    bad = next(
        n for n, line in enumerate(lines) if n > 3 and b'"text"' in line and b"tool" not in line
    )
    lines[bad] = lines[bad].replace(b'"text"', b'"te\xffxt"', 1)  # one byte, mid-file
    path = tmp_path / source.name
    path.write_bytes(b"".join(lines))
    [strict] = import_transcripts(path, InMemoryEventStore())
    error = strict.failure()
    assert isinstance(error, TranscriptError) and error.where == f"line {bad + 1}"
    assert "not UTF-8 text" in error.message and "--lenient" in error.message
    [lenient] = import_transcripts(path, InMemoryEventStore(), ImportOptions(lenient=True))
    assert [where for where, _ in lenient.unwrap().skipped] == [f"line {bad + 1}"]
    # A first line that is not UTF-8 says the file is no transcript at all.
    path.write_bytes(b"\xff" + b"".join(lines))
    [foreign] = import_transcripts(path, InMemoryEventStore())
    assert "not UTF-8 text (line 1, byte 0)" in str(foreign.failure())


def test_lenient_leaves_out_a_result_whose_call_was_on_a_damaged_line(tmp_path: Path) -> None:
    source = next((DATA / "codex").glob("rollout-*.jsonl"))
    lines = source.read_text(encoding="utf-8").splitlines(keepends=True)
    call = next(n for n, line in enumerate(lines) if '"function_call"' in line)
    lines[call] = lines[call][: len(lines[call]) // 2] + "\n"  # the call's line cut short
    path = tmp_path / source.name
    path.write_text("".join(lines), encoding="utf-8")
    [strict] = import_transcripts(path, InMemoryEventStore())
    assert strict.failure().where == f"line {call + 1}"
    [lenient] = import_transcripts(path, InMemoryEventStore(), ImportOptions(lenient=True))
    left_out = lenient.unwrap().skipped
    assert left_out[0][0] == f"line {call + 1}"
    assert len(left_out) == 2 and "which no call before it asked for" in left_out[1][1]


def test_a_byte_order_mark_is_read_past(tmp_path: Path) -> None:
    for sample in ("claude-code/short_two_rejections.jsonl", "opencode/expected.json"):
        source = DATA / sample
        if source.name == "expected.json":
            source = next(p for p in source.parent.glob("ses_*.json"))
        path = tmp_path / source.name
        path.write_bytes(b"\xef\xbb\xbf" + source.read_bytes())
        [with_mark] = import_transcripts(path, InMemoryEventStore())
        [without] = import_transcripts(source, InMemoryEventStore())
        assert with_mark.unwrap().events == without.unwrap().events > 0
