"""Views per tool: an edit as the diff of the text it replaced, a shell call as its terminal.

The calls are the shared samples' own (each agent's spelling of an edit and of a
command), imported as ``import-transcript`` imports them; the diff itself is held
to its meaning on any texts: applied to the old text, it gives the new one.
"""

from __future__ import annotations

import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from correx_tools import (
    InMemoryEventStore,
    InvocationId,
    SessionId,
    ToolExecutionCompletedEvent,
    ToolReceipt,
)
from correx_tools.core.lifecycle.record import ToolInvocationRecord
from correx_tools.core.lifecycle.status import ToolInvocationStatus
from correx_tools.core.replay.fold import fold_events
from correx_tools.core.replay.projection import ToolProjector
from correx_tools.core.report.edits import MAX_LINES, diff_lines, edit_of, search_replace_blocks
from correx_tools.core.report.redaction import DEFAULT, MASK
from correx_tools.core.report.tool_views import command_of, tool_view
from correx_tools.shell.transcripts.importing.importing import import_transcripts

from .strategies import completed, failed, rejected, requested, started, stored
from .transcript_samples import DATA

SAMPLES = {
    "claude-code": DATA / "claude-code" / "session_4d5611e5_subagent_a2898e3.jsonl",
    "codex": next((DATA / "codex").glob("rollout-*.jsonl")),
    "cline": DATA / "cline" / "tasks" / "1763448130250" / "api_conversation_history.json",
    "gemini-cli": DATA / "gemini-cli" / "session-2025-11-18T06-42-8c2d41e7.jsonl",
    "aider": DATA / "aider" / "synth" / ".aider.chat.history.md",
    "openhands": DATA / "openhands" / "multi_swe_bench_ponylang__ponyc-4595.json",
    "goose": DATA / "goose" / "20251118_154210.jsonl",
    "opencode": DATA / "opencode" / "ses_4f8e21c07ffdR2kLq9mT3xYb7w.json",
}


def records(sample: str) -> list[ToolInvocationRecord]:
    """Every call of a sample, as it stands at the end of its transcript."""
    store = InMemoryEventStore()
    [result] = import_transcripts(SAMPLES[sample], store)
    session = SessionId(result.unwrap().session_id)
    state = fold_events(ToolProjector(), list(store.read(session))).unwrap().state
    return list(state.records())


def first(sample: str, tool: str, **arguments: str) -> ToolInvocationRecord:
    for record in records(sample):
        given_ = record.request.arguments
        if record.tool_name == tool and all(given_.get(k) == v for k, v in arguments.items()):
            return record
    raise AssertionError(f"no {tool} call in the {sample} sample")


def applied(old: str, hunks: list[dict[str, Any]]) -> str:
    """``old`` with each hunk put in place at the line it says: what the diff means."""
    lines = old.split("\n")
    if lines[-1] == "":
        lines.pop()
    out: list[str] = []
    at = 0
    for hunk in hunks:
        start = hunk["old"] - 1
        out += lines[at:start]
        at = start
        for op, text in hunk["lines"]:
            if op == "\\":
                continue  # a note that the line before it has no newline at the end
            if op in " -":
                assert lines[at] == text, (at, text)
                at += 1
            if op in " +":
                out.append(text)
    out += lines[at:]
    return "\n".join(out)


@given(
    st.lists(st.sampled_from(["a", "b", "c", "", "def f():", "    return 1"]), max_size=30),
    st.lists(st.sampled_from(["a", "b", "c", "", "def f():", "    return 2"]), max_size=30),
)
def test_a_diff_applied_to_the_old_text_gives_the_new(old: list[str], new: list[str]) -> None:
    before, after = "\n".join(old), "\n".join(new)
    hunks, cut = diff_lines(before, after)
    assert not cut
    expected = after.split("\n")
    if expected[-1] == "":
        expected.pop()
    assert applied(before, hunks).split("\n") == (expected or [""])
    # No hunk exactly when nothing changed: a final newline added or dropped is a change.
    assert (hunks == []) == (before == after)


def test_a_side_longer_than_the_limit_is_cut_and_says_so() -> None:
    hunks, cut = diff_lines("x\n" * (MAX_LINES + 5), "y\n")
    assert cut and sum(len(h["lines"]) for h in hunks) == MAX_LINES + 1


# The samples' one edit, in every agent's spelling: the Greek capital eta is the point.
REMOVED = "        'η' | 'Η' => \"i\".into(),"  # noqa: RUF001
ADDED = "        'η' | 'Η' | 'ή' | 'Ή' => \"i\".into(),"  # noqa: RUF001


@pytest.mark.parametrize(
    ("sample", "tool", "path"),
    [
        ("gemini-cli", "replace", "/home/yuki/translit-rs/src/greek.rs"),
        ("cline", "replace_in_file", "src/greek.rs"),
        ("codex", "apply_patch", "src/greek.rs"),
        ("opencode", "edit", "/home/yuki/translit-rs/src/greek.rs"),
        ("goose", "developer__text_editor", "/home/yuki/translit-rs/src/greek.rs"),
        ("aider", "edit", "src/greek.rs"),
    ],
)
def test_each_agents_edit_is_the_diff_of_the_text_it_replaced(
    sample: str, tool: str, path: str
) -> None:
    edits = [
        view
        for record in records(sample)
        if record.tool_name == tool and (view := tool_view(record, DEFAULT)) is not None
    ]
    assert edits and all(view["kind"] == "edit" for view in edits)
    # An edit that did not take effect has no diff: only one that did says what it changed.
    assert all(("files" in view) == view["applied"] for view in edits)
    lines = [
        (file["path"], op, text)
        for view in edits
        if view["applied"]
        for file in view["files"]
        for hunk in file["hunks"]
        for op, text in hunk["lines"]
    ]
    assert (path, "-", REMOVED) in lines
    assert (path, "+", ADDED) in lines


def test_a_file_written_whole_is_every_line_added() -> None:
    record = first("cline", "write_to_file")
    [file] = tool_view(record, DEFAULT)["files"]  # type: ignore[index]
    assert file["whole"] and file["path"] == "docs/使い方.md"
    assert [op for hunk in file["hunks"] for op, _ in hunk["lines"]] == ["+"] * 4


@pytest.mark.parametrize(
    ("arguments", "path", "lines"),
    [
        ({"file_path": "a.py", "edits": [{"old_string": "x = 1", "new_string": "x = 2"},
                                         {"old_string": "y", "new_string": "z"}]},
         "a.py", [["-", "x = 1"], ["+", "x = 2"], ["-", "y"], ["+", "z"]]),
        ({"command": "create", "path": "/w/n.c", "file_text": "int main;\n"},
         "/w/n.c", [["+", "int main;"]]),
        ({"command": "insert", "path": "/w/n.c", "insert_line": 3, "new_str": "x++;"},
         "/w/n.c", [["+", "x++;"]]),
        ({"path": "f", "diff": "<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE"},
         "f", [["-", "old"], ["+", "new"]]),
    ],
)  # fmt: skip
def test_the_other_spellings_of_an_edit(
    arguments: dict[str, Any], path: str, lines: list[list[str]]
) -> None:
    files = edit_of("MultiEdit" if "edits" in arguments else "str_replace_editor", arguments)
    assert files is not None
    assert [file["path"] for file in files] == [path]
    assert [line for hunk in files[0]["hunks"] for line in hunk["lines"]] == lines


def test_a_view_of_a_call_that_reads_is_none() -> None:
    assert tool_view(first("claude-code", "Read"), DEFAULT) is None
    assert tool_view(first("goose", "developer__text_editor", command="view"), DEFAULT) is None


def test_a_shell_call_is_its_command_its_output_and_its_exit_code() -> None:
    completed = next(
        r
        for r in records("codex")
        if r.request.arguments.get("command") == "make test" and r.receipt.exit_code  # type: ignore[union-attr]
    )
    view = tool_view(completed, DEFAULT)
    assert view is not None and view["kind"] == "shell"
    assert view["command"] == "make test" and view["exit_code"] == 2
    assert view["output"] == completed.receipt.output  # type: ignore[union-attr]
    bash = next(r for r in records("claude-code") if r.tool_name == "Bash")
    shown = tool_view(bash, DEFAULT)
    assert shown is not None and shown["command"] == bash.request.arguments["command"]
    # Claude Code states a command's exit code only when it is not 0: none is recorded here.
    assert shown["exit_code"] is None and shown["output"] == bash.receipt.output  # type: ignore[union-attr]


def test_a_shell_call_that_did_not_run_shows_why_and_no_exit_code() -> None:
    rejected = next(
        r
        for r in records("codex")
        if r.tool_name == "shell_command"
        and r.status is ToolInvocationStatus.REJECTED
        and "command" in r.request.arguments
    )
    view = tool_view(rejected, DEFAULT)
    assert view is not None
    assert view["exit_code"] is None and view["ran"] is False and view["output"] == rejected.reason


def test_an_aider_command_has_no_exit_code_to_show() -> None:
    view = tool_view(first("aider", "shell"), DEFAULT)
    assert view is not None and view["exit_code"] is None and view["command"] == "make test"


def test_a_command_is_shown_as_typed() -> None:
    assert command_of({"command": ["bash", "-lc", "cat a.txt | wc -l"]}) == "cat a.txt | wc -l"
    assert command_of({"command": ["git", "commit", "-m", "two words"]}) == (
        "git commit -m 'two words'"
    )
    assert command_of({"cmd": "ls"}) == "ls" and command_of({"command": 3}) is None


def test_a_secret_in_an_edit_or_an_output_is_masked() -> None:
    record = first("gemini-cli", "replace")
    secret = "sk-ant-api03-" + "A" * 40
    arguments = dict(record.request.arguments)
    arguments["new_string"] = f'KEY = "{secret}"\n'
    files = edit_of("replace", arguments)
    assert files is not None
    masked = tool_view(
        record._replace(request=record.request.__class__(tool_name="replace", arguments=arguments)),
        DEFAULT,
    )
    assert masked is not None and secret not in repr(masked)
    assert secret in repr(files)  # the edit itself holds it: only the view is masked


def test_an_edit_that_only_drops_the_final_newline_is_a_change() -> None:
    hunks, _ = diff_lines("a\nb\n", "a\nb")
    assert hunks == [
        {
            "old": 1,
            "new": 1,
            "lines": [[" ", "a"], ["-", "b"], ["+", "b"], ["\\", " No newline at end"]],
        }
    ]
    # Both sides without a final newline (an edit of a fragment): no note, only the change.
    assert diff_lines("x = 1", "x = 2")[0] == [
        {"old": 1, "new": 1, "lines": [["-", "x = 1"], ["+", "x = 2"]]}
    ]


# The pattern the blocks were read with before: it backtracks quadratically over a model's
# text (a diff of 130 KB of unclosed SEARCH lines took 15 s), so it is only the reference.
_BLOCK_PATTERN = re.compile(
    r"^(?:-{3,} SEARCH|<{3,} SEARCH)\n(.*?)\n?^={3,}\n(.*?)\n?^(?:\+{3,} REPLACE|>{3,} REPLACE)",
    re.MULTILINE | re.DOTALL,
)
_BLOCK_LINES = ["<<<<<<< SEARCH", "------- SEARCH", "<< SEARCH", "<<<<<<< SEARCH x", "=======",
                "===", "== ", ">>>>>>> REPLACE", "+++++++ REPLACE", ">>>>>>> REPLACE x",
                ">> REPLACE", "a", "", "b c"]  # fmt: skip


@given(st.lists(st.sampled_from(_BLOCK_LINES), max_size=14), st.booleans())
def test_search_replace_blocks_are_read_as_the_pattern_reads_them(
    lines: list[str], newline_at_end: bool
) -> None:
    text = "\n".join(lines) + ("\n" if newline_at_end else "")
    expected = [(m.group(1), m.group(2)) for m in _BLOCK_PATTERN.finditer(text)]
    assert search_replace_blocks(text) == expected


def test_unclosed_search_blocks_cost_one_pass() -> None:
    # 1 MiB of SEARCH lines with no divider: read in one pass (the old pattern: hours).
    text = "<<<<<<< SEARCH\nx\n" * 65_536
    assert search_replace_blocks(text) == []
    assert search_replace_blocks(text + "=======\ny\n>>>>>>> REPLACE") == [
        (text[len("<<<<<<< SEARCH\n") : -1], "y")
    ]


def _edit(*ending: object) -> ToolInvocationRecord:
    """A Claude Code edit that ends with ``ending`` (nothing: still in flight)."""
    events = [requested("e", tool="Edit", file_path="a.py", old_string="x = 1", new_string="x = 2")]
    state = fold_events(ToolProjector(), stored([*events, *ending])).unwrap().state
    [record] = state.records()
    return record


SECRET = "sk-ant-api03-" + "Q" * 40


def test_an_edit_shows_a_diff_only_when_it_took_effect_and_says_why_otherwise() -> None:
    took = tool_view(_edit(started("e"), completed("e")), DEFAULT)
    assert took is not None and took["applied"] is True and took["files"][0]["hunks"]
    note = f"ERROR: No replacement was performed, old_str `x = 1` ({SECRET})"
    nothing = ToolExecutionCompletedEvent(
        invocation_id=InvocationId("e"),
        receipt=ToolReceipt(output="ERROR", metadata={"edit_applied": "false", "edit_note": note}),
    )
    for ending, status, why in [
        ((started("e"), nothing), "completed", "ERROR: No replacement was performed, old_str"),
        ((started("e"), failed("e", reason=f"verification failed: {SECRET}")), "failed",
         "verification failed: "),
        ((rejected("e", reason="The user doesn't want to proceed"),), "rejected",
         "refused before it ran: The user doesn't want to proceed"),
        ((started("e"),), "started", "not finished"),
        ((), "requested", "not finished"),
    ]:  # fmt: skip
        view = tool_view(_edit(*ending), DEFAULT)
        assert view is not None and view["applied"] is False and "files" not in view
        assert view["status"] == status and view["paths"] == ["a.py"]
        assert view["why"].startswith(why) and SECRET not in view["why"], view
        assert MASK in view["why"] or status not in ("completed", "failed")
