"""What a call did, whatever agent made it (`meaning`, `shell_calls`), and the alignment by
several keys in turn that rests on it."""

from __future__ import annotations

import itertools

import pytest
from hypothesis import given
from hypothesis import strategies as st

from correx_tools.core.replay.alignment import align, align_in_turn
from correx_tools.core.replay.kinds import common_root, rooted
from correx_tools.core.report.meaning import Meanings
from correx_tools.core.report.shell_calls import shell_call
from correx_tools.core.tools.shell_words import MAX_COMMAND, scanned, shell_tokens

REPO = "/home/dev/repo"


def said(format: str | None, tool: str, arguments: dict[str, object]) -> tuple[str, str]:
    found = Meanings(format).of(tool, arguments)
    return found.kind, rooted(found.target, REPO)


# The same read, run and edit as seven agents spell them.
READS = [
    ("claude-code", "Read", {"file_path": f"{REPO}/src/a.py"}),
    ("codex", "shell_command", {"command": ["bash", "-lc", "sed -n '1,80p' src/a.py"]}),
    ("opencode", "read", {"filePath": f"{REPO}/src/a.py"}),
    ("gemini-cli", "read_file", {"absolute_path": f"{REPO}/src/a.py"}),
    ("openhands", "str_replace_editor", {"command": "view", "path": f"{REPO}/src/a.py"}),
    ("mini-swe-agent", "bash", {"command": "cat ./src/a.py"}),
    ("swe-agent", "open", {"command": 'open "src/a.py" 20'}),
    ("cline", "read_file", {"path": "src/a.py"}),
]
RUNS = [
    ("claude-code", "Bash", {"command": f"cd {REPO} &&  pytest -q tests"}),
    ("codex", "shell_command", {"command": "pytest -q tests", "workdir": REPO}),
    ("opencode", "bash", {"command": "pytest  -q 'tests'"}),
    ("gemini-cli", "run_shell_command", {"command": f"pytest -q {REPO}/tests"}),
    ("openhands", "execute_bash", {"command": f'cd {REPO} && pytest -q "tests"'}),
    ("goose", "developer__shell", {"command": "pytest -q ./tests"}),
]
EDITS = [
    ("claude-code", "Edit",
     {"file_path": f"{REPO}/src/a.py", "old_string": "x", "new_string": "y"}),
    ("openhands", "str_replace_editor",
     {"command": "str_replace", "path": f"{REPO}/src/a.py", "old_str": "x", "new_str": "y"}),
    ("gemini-cli", "replace", {"file_path": f"{REPO}/src/a.py", "old_string": "x",
                               "new_string": "y"}),
]  # fmt: skip


@pytest.mark.parametrize(("format", "tool", "arguments"), READS)
def test_every_agents_read_of_one_file_is_a_read_of_it(
    format: str, tool: str, arguments: dict[str, object]
) -> None:
    assert said(format, tool, arguments) == ("read", "src/a.py")


@pytest.mark.parametrize(("format", "tool", "arguments"), RUNS)
def test_every_agents_command_is_its_words_quoting_and_whitespace_aside(
    format: str, tool: str, arguments: dict[str, object]
) -> None:
    assert said(format, tool, arguments) == ("run", "pytest -q tests")


def test_every_agents_edit_of_one_file_is_the_same_edit() -> None:
    found = [Meanings(format).of(tool, arguments) for format, tool, arguments in EDITS]
    assert {(m.kind, rooted(m.target, REPO), m.content) for m in found} == {
        ("edit", "src/a.py", found[0].content)
    }
    assert found[0].changes[0].lines == (("-", "x"), ("+", "y"))


def test_a_swe_agent_windowed_edit_changes_the_file_it_has_open() -> None:
    run = Meanings("swe-agent")
    assert run.of("edit", {"command": "edit 1:1\nx\nend_of_edit"}).target == ""  # none open
    run.of("create", {"command": "create reproduce.py"})
    found = run.of("edit", {"command": "edit 1:1\nimport x\nend_of_edit\n"})
    assert (found.target, found.changes[0].lines, found.changes[0].at) == (
        "reproduce.py", (("+", "import x"),), 1
    )  # fmt: skip
    run.of("open", {"path": "src/fields.py", "line_number": 1474})  # as a function call
    found = run.of("edit", {"replacement_text": "y = 2", "start_line": 3, "end_line": 3})
    assert (found.kind, found.target) == ("edit", "src/fields.py")
    assert run.of("scroll_down", {"command": "scroll_down"}).target == "src/fields.py"


@pytest.mark.parametrize(
    ("command", "kind", "target", "changed"),
    [
        ("sed -i 's/a/b/' x.py y.py", "edit", "x.py", ["x.py", "y.py"]),
        ("sed -i -e 's/a/b/' x.py", "edit", "x.py", ["x.py"]),
        ("perl -pi -e 's/a/b/' x.py", "edit", "x.py", ["x.py"]),
        ("echo hi >> notes.txt", "edit", "notes.txt", ["notes.txt"]),
        ("rm -f a.txt b.txt", "edit", "a.txt", ["a.txt", "b.txt"]),
        ("mv a.py b.py", "edit", "a.py", ["a.py", "b.py"]),
        ("python run.py 2> /dev/null", "run", "python run.py", []),
        ("grep -rn 'def f' src | head -5", "search", "grep -rn def f src | head -5", []),
        ("ls -la src", "list", "ls -la src", []),
        ("head -n 20 src/a.py", "read", "src/a.py", []),
        ("echo COMPLETE_TASK_AND_SUBMIT_FINAL_OUTPUT && git diff", "submit", "", []),
    ],
)
def test_what_a_shell_command_did(command: str, kind: str, target: str, changed: list[str]) -> None:
    found = shell_call(command)
    assert (found.kind, rooted(found.target, None)) == (kind, target)
    assert [change.path for change in found.changes] == changed


def test_a_here_document_written_whole_is_known_line_by_line() -> None:
    found = shell_call("cat <<'EOF' > t.py\nimport re\nprint(1)\nEOF\npython t.py")
    (change,) = found.changes
    assert (found.kind, change.how, change.lines) == (
        "edit", "write", (("+", "import re"), ("+", "print(1)"))
    )  # fmt: skip
    # A shell fed a here-document runs its lines: they are not a file's text.
    assert shell_call("bash <<EOF\nrm -rf x\nEOF").kind == "run"


def test_a_hostile_command_is_read_only_to_its_limit() -> None:
    hostile = "'" + "a\\'" * 400_000 + " | " + "<<EOF " * 50_000 + "\n" + "x\n" * 10_000
    tokens, cut = shell_tokens(hostile, heredocs=True)
    assert cut and sum(len(value) for _, value in tokens) <= MAX_COMMAND
    found = shell_call(hostile)
    assert len(found.target) <= MAX_COMMAND


def test_a_runs_workspace_is_the_deepest_folder_of_every_path_it_touched() -> None:
    assert common_root(["/w/r/a/x.py", "/w/r/b/y.py", "rel.txt"]) == "/w/r"
    assert common_root(["/w/r/a.py", "/tmp/x"]) is None
    assert common_root(["relative/only.py"]) is None
    assert rooted("PYTHONPATH=/w/r\x1fpython\x1f/w/r/x.py", "/w/r") == "PYTHONPATH=. python x.py"
    assert rooted("\x01cd=/w\x1fpython\x1fx.py", "/w/r") == "cd /w && python x.py"


keys = st.lists(st.integers(0, 4), max_size=30)


@given(keys, keys)
def test_aligning_in_turn_by_one_key_is_aligning_by_it(a: list[int], b: list[int]) -> None:
    once = align(a, b)
    turned = align_in_turn([a, a, a], [b, b, b], alike=2)
    assert list(turned.pairs()) == list(once.pairs())
    assert set(turned.levels) <= {0}
    assert turned.first_divergence == once.first_divergence


@given(keys, keys, st.data())
def test_a_looser_key_only_matches_what_the_stricter_left_and_keeps_the_order(
    a: list[int], b: list[int], data: st.DataObject
) -> None:
    # The looser key: each exact key folded into fewer classes.
    classes = data.draw(st.integers(1, 3))
    loose_a, loose_b = [k % classes for k in a], [k % classes for k in b]
    found = align_in_turn([a, loose_a], [b, loose_b], alike=1)
    pairs = list(found.pairs())
    assert all(i < k and j < m for (i, j), (k, m) in itertools.pairwise(pairs))
    exact = {pair for pair, level in zip(pairs, found.levels, strict=True) if level == 0}
    assert len(exact) == len(list(align(a, b).pairs()))
    for (i, j), level in zip(pairs, found.levels, strict=True):
        assert (a[i] == b[j]) if level == 0 else (loose_a[i] == loose_b[j])


@given(
    st.text(alphabet=st.sampled_from("ab /.-_=é\u2003\t'\"\\|&;<>$\n"), max_size=60), st.booleans()
)
def test_a_plain_command_splits_as_the_scan_splits_it(text: str, heredocs: bool) -> None:
    assert shell_tokens(text, heredocs=heredocs) == scanned(text, heredocs=heredocs)
