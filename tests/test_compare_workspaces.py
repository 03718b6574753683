"""A run's files known by its changes: versions chained over them, where two runs part, what
each left of each file and whether that is the same change."""

from __future__ import annotations

from correx_tools.core.replay.comparison import Row
from correx_tools.core.replay.kinds import Change
from correx_tools.core.report.final_changes import compare_changes, final_changes
from correx_tools.core.report.meaning import Meanings
from correx_tools.core.report.workspaces import EditedFiles, files_part


def edited(files: EditedFiles, position: int, tool: str, arguments: dict[str, object]) -> None:
    meaning = Meanings().of(tool, arguments)
    files.record(position, meaning.changes, meaning.said or meaning.content)


def edit(old: str, new: str, path: str = "/r/a.py") -> dict[str, str]:
    return {"file_path": path, "old_string": old, "new_string": new}


def test_the_same_edits_in_the_same_order_are_the_same_file_wherever_the_checkout_is() -> None:
    a, b = EditedFiles("/r"), EditedFiles("/s/")
    edited(a, 0, "Edit", edit("x", "y"))
    edited(b, 0, "Edit", edit("x", "y", "/s/a.py"))
    assert a.files["a.py"].version == b.files["a.py"].version != 0
    same = compare_changes(final_changes(a, None), final_changes(b, None))
    assert [(c.path, c.same) for c in same] == [("a.py", True)]
    edited(a, 1, "Edit", edit("y", "x"))  # undone: the transcript cannot say the text is back
    assert a.files["a.py"].version != b.files["a.py"].version
    rows = [Row("same", 0, 0, ()), Row("only_a", 1, None, ())]
    assert files_part(rows, a, b) == (1, rows[1])
    assert files_part(rows[:1], a, b) is None


def test_a_run_without_a_working_directory_names_its_files_from_the_root_it_settles_on() -> None:
    a = EditedFiles(None)
    a.record(0, [Change("/w/repo/src/a.py", "edit", (("-", "x"), ("+", "y")))])
    a.record(1, [Change("src/a.py", "edit", (("-", "y"), ("+", "z")))])
    a.settle("/w/repo")
    assert list(a.files) == ["src/a.py"]  # one file, one name
    assert a.files["src/a.py"].edits == 2


def test_a_file_one_run_never_touched_differs_by_all_the_other_did() -> None:
    a, b = EditedFiles(None), EditedFiles(None)
    edited(a, 0, "Write", {"file_path": "n.txt", "content": "one\ntwo\n"})
    edited(b, 0, "Read", {"file_path": "n.txt"})
    a.settle(None)
    b.settle(None)
    assert list(b.files) == []
    (told,) = compare_changes(final_changes(a, None), final_changes(b, None))
    assert (told.same, told.a.of, told.b) == (False, "text", None)  # type: ignore[union-attr]
    assert told.a.hunks[0]["lines"] == [["+", "one"], ["+", "two"]]  # type: ignore[union-attr]


def test_a_change_that_does_not_say_its_lines_is_unknown_until_a_patch_says() -> None:
    a, b = EditedFiles("/r"), EditedFiles("/s")
    edited(a, 0, "Bash", {"command": "sed -i 's/x/y/' a.py"})
    edited(b, 0, "Edit", edit("x", "y", "/s/a.py"))
    (told,) = compare_changes(final_changes(a, None), final_changes(b, None))
    said = (None, "unknown", "sed -i 's/x/y/' a.py")
    assert (told.same, told.a.of, told.a.by) == said  # type: ignore[union-attr]
    patch = "diff --git a/a.py b/a.py\n--- a/a.py\n+++ b/a.py\n@@ -1 +1 @@\n-x\n+y\n"
    (told,) = compare_changes(final_changes(a, patch), final_changes(b, None))
    assert (told.same, told.a.of, told.b.of) == (True, "patch", "edits")  # type: ignore[union-attr]


def test_a_scratch_file_is_no_change_and_a_patch_covers_the_workspace() -> None:
    a = EditedFiles("/r")
    edited(a, 0, "Bash", {"command": "cat <<'EOF' > /r/try.py\nprint(1)\nEOF"})
    edited(a, 1, "Bash", {"command": "rm try.py"})
    edited(a, 2, "Write", {"file_path": "/tmp/notes.txt", "content": "n\n"})
    edited(a, 3, "Write", {"file_path": "/r/kept.py", "content": "k\n"})
    assert sorted(final_changes(a, None)) == ["/tmp/notes.txt", "kept.py"]
    # A final patch that does not name kept.py says it ended as it began; /tmp is outside.
    assert sorted(final_changes(a, "")) == ["/tmp/notes.txt"]
