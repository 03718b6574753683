"""A call input too large in many small parts, or nested too deeply, costs that input, not
its session: the import puts a mark in its place (its size, its SHA-256, what was cut),
the session is kept, and the audit finds what the session did and says which call it could
not judge whole. A file that still cannot be read makes the audit exit 2, naming it.

The hostile transcripts are written here; the command runs in this process.
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from correx_tools.shell.stores.codec.strict_json import canonical_json
from correx_tools.shell.transcripts.common.shallow import MAX_DEPTH, shallow_text, shallow_value

from .commands import correx
from .hostile_calls import hostile_session

RM = ("Bash", {"command": "rm -rf /"})


def audited(source: Path, status: int) -> tuple[dict[str, Any], str]:
    result = correx("audit", str(source), "--no-cache", "--json")
    assert result.returncode == status, result.stderr
    assert "Traceback" not in result.stderr
    return json.loads(result.stdout), result.stderr


def nested(depth: int) -> Any:
    value: Any = "bottom"
    for _ in range(depth):
        value = {"a": [value]}
    return value


def deep_transcript(path: Path, depth: int) -> Path:
    """A session whose second call's input nests ``depth`` levels (written without the
    parser's recursion: the text is built)."""
    hostile_session(path, "deep", [RM, ("mcp__tools__store", {"v": "PLACE"})])
    text = path.read_text("utf-8").replace('"PLACE"', '{"a": [' * depth + '"x"' + "]}" * depth)
    path.write_text(text, "utf-8")
    return path


def test_an_input_of_100000_small_members_keeps_its_session(tmp_path: Path) -> None:
    wide = {f"k{n}": n for n in range(100_000)}  # 1.48 MB, no long string
    transcript = hostile_session(
        tmp_path / "t.jsonl", "wide", [RM, ("Write", {"file_path": "/etc/cron.d/x", **wide})]
    )
    said, _ = audited(transcript, 1)
    found = [(f["sequence"], f["rule"]) for f in said["findings"]]
    assert (3, "command-denied") in found  # the session was not refused
    (whole,) = [f for f in said["findings"] if f["rule"] == "not-audited-whole"]
    expected = hashlib.sha256(canonical_json({"file_path": "/etc/cron.d/x", **wide}).encode())
    assert "the import cut arguments (as JSON): " in whole["message"]
    assert f"sha256:{expected.hexdigest()}" in whole["message"]


def test_an_input_nested_3000_deep_keeps_its_session(tmp_path: Path) -> None:
    said, _ = audited(deep_transcript(tmp_path / "t.jsonl", 3_000), 1)
    rules = sorted(f["rule"] for f in said["findings"])
    assert rules == ["command-denied", "not-audited-whole", "write-outside-workspace"]
    (whole,) = [f for f in said["findings"] if f["rule"] == "not-audited-whole"]
    assert f"a part nested deeper than {MAX_DEPTH} levels" in whole["message"]


def test_an_input_nested_past_what_a_store_keeps_keeps_its_session(tmp_path: Path) -> None:
    # 300 levels parse, but no store keeps an event nested past 100: marked, not refused.
    said, _ = audited(deep_transcript(tmp_path / "t.jsonl", 300), 1)
    assert {f["rule"] for f in said["findings"]} >= {"command-denied", "not-audited-whole"}


def test_the_audit_exits_2_naming_a_file_of_its_source_it_could_not_read(
    tmp_path: Path,
) -> None:
    folder = tmp_path / "sessions"
    folder.mkdir()
    hostile_session(folder / "found.jsonl", "found", [RM])
    broken = hostile_session(folder / "broken.jsonl", "broken", [RM])
    lines = broken.read_text("utf-8").splitlines()
    broken.write_text("\n".join([lines[0], "{not json", *lines[1:]]) + "\n", "utf-8")
    said, stderr = audited(folder, 2)
    assert {f["session"] for f in said["findings"]} == {"found"}
    assert said["unread_files"] == 1
    assert "broken.jsonl" in stderr and "not of the whole SOURCE" in stderr


_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner,
                                                                 max_size=3),
    max_leaves=30,
)  # fmt: skip


def _deepened(value: Any, depth: int) -> Any:
    for n in range(depth):
        value = [value, ']\\"{'] if n % 2 else {'k"[': value}
    return value


def _marks_unplaced(value: Any) -> Any:
    """``value`` with each mark's place left out (the text's cut does not know it)."""
    if isinstance(value, dict):
        return {key: _marks_unplaced(inner) for key, inner in value.items()}
    if isinstance(value, list):
        return [_marks_unplaced(inner) for inner in value]
    if isinstance(value, str) and value.startswith("[cut: ") and ": a part nested" in value:
        return "[cut: " + value[value.index("a part nested") :]
    return value


@settings(max_examples=60, deadline=None)
@given(_JSON, st.integers(min_value=0, max_value=MAX_DEPTH + 12))
def test_a_value_cut_in_its_text_is_the_value_cut_as_a_value(value: Any, depth: int) -> None:
    # Answered two ways: the text's one pass (for what the parser cannot take) and the
    # value's walk (for what parsed) put the same marks, with the same digests, in place.
    whole = _deepened(value, depth)
    text = canonical_json(whole)
    by_text = json.loads(shallow_text(text))
    by_value, notes = shallow_value(whole, "arguments")
    assert by_text == _marks_unplaced(by_value)
    assert (shallow_text(text) == text) is (not notes)
