"""A run's files known by its edits: versions chained over them, where two runs part."""

from __future__ import annotations

from correx_tools.core.replay.comparison import Row
from correx_tools.core.report.workspaces import EditedFiles, differing_files, file_diff, files_part


def edit(old: str, new: str, path: str = "/r/a.py") -> dict[str, str]:
    return {"file_path": path, "old_string": old, "new_string": new}


def test_the_same_edits_in_the_same_order_are_the_same_file_wherever_the_checkout_is() -> None:
    a, b = EditedFiles("/r"), EditedFiles("/s/")
    a.record(0, "Edit", edit("x", "y"))
    b.record(0, "Edit", edit("x", "y", "/s/a.py"))
    assert a.files["a.py"].version == b.files["a.py"].version != 0
    assert differing_files(a, b) == []
    a.record(1, "Edit", edit("y", "x"))  # undone: the transcript cannot say the text is back
    assert differing_files(a, b) == ["a.py"]
    rows = [Row("same", 0, 0, ()), Row("only_a", 1, None, ())]
    assert files_part(rows, a, b) == (1, rows[1])
    assert files_part(rows[:1], a, b) is None


def test_a_file_one_run_never_touched_differs_by_all_the_other_did() -> None:
    a, b = EditedFiles(None), EditedFiles(None)
    a.record(0, "Write", {"file_path": "n.txt", "content": "one\ntwo\n"})
    b.record(0, "Read", {"file_path": "n.txt"})
    assert list(b.files) == []
    told = file_diff(a.files["n.txt"], None)
    assert told["of"] == "text"
    assert told["hunks"][0]["lines"] == [["-", "one"], ["-", "two"]]
    a.record(1, "Edit", edit("one", "uno", "n.txt"))
    told = file_diff(a.files["n.txt"], None)
    assert told["of"] == "edits"
    assert [line for h in told["hunks"] for line in h["lines"]][-2:] == [
        ["-", "-one"],
        ["-", "+uno"],
    ]
