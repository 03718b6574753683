"""The performance page is what the benchmark script writes from its recorded rows and notes.

The page is generated, so it cannot drift from the rows it was made from: the one on disk
must be exactly what ``python -m benchmarks --rewrite-page`` writes. Every row names the
issue that set its target, and every row that misses it says why and what the floor is.
"""

from __future__ import annotations

import dataclasses

import pytest
from hypothesis import given
from hypothesis import strategies as st

from benchmarks.page import (
    NOTES,
    PAGE,
    RESULTS,
    TEMPLATE,
    Note,
    Recorded,
    Results,
    Run,
    dump,
    load,
    load_notes,
    matches,
    note_for,
    parse,
    record,
    render_page,
)
from benchmarks.run import main
from benchmarks.table import Row


def test_the_page_on_disk_is_what_the_script_writes_from_the_recorded_rows() -> None:
    written = render_page(load(RESULTS), load_notes(NOTES), TEMPLATE.read_text(encoding="utf-8"))
    assert PAGE.read_text(encoding="utf-8") == written, (
        "docs/performance.md is generated: run `python -m benchmarks --rewrite-page`"
    )


def test_every_recorded_row_names_its_issue_and_every_missed_target_its_reason() -> None:
    results, notes = load(RESULTS), load_notes(NOTES)
    runs = {run.key for run in results.runs}
    for recorded in results.rows:
        assert recorded.run in runs, recorded.row.name
        found = note_for(recorded.row.name, notes)
        assert found is not None, f"no note in benchmarks/notes.toml for {recorded.row.name!r}"
        if recorded.row.met is False:
            assert found[1].why and found[1].floor, f"{found[0]!r} needs a why and a floor"


def test_the_page_says_who_measured_each_row_and_why_a_row_misses() -> None:
    page = PAGE.read_text(encoding="utf-8")
    for heading in ("## The runs", "## Results", "## Targets not met, and why"):
        assert heading in page
    results = load(RESULTS)
    for run in results.runs:
        assert f"`{run.command}`" in page and run.commit in page
    assert "*Why:*" in page and "*Floor:*" in page
    assert "{{" not in page


def test_a_note_belongs_to_the_rows_its_key_begins_with_the_longest_key_winning() -> None:
    notes = {
        "final-state fold": Note(issue="5"),
        "final-state fold, ends in thirds": Note(issue="30"),
        "import-transcript (*), growth": Note(issue="31"),
    }
    assert note_for("final-state fold, 10k open", notes) == ("final-state fold", notes[
        "final-state fold"])  # fmt: skip
    found = note_for("final-state fold, ends in thirds", notes)
    assert found is not None and found[1].issue == "30"
    assert note_for("import-transcript (aider), growth of the ratio", notes) is not None
    assert note_for("import-transcript (aider), into memory", notes) is None
    assert matches("a*b*c", "a*c") and not matches("a*b", "a*c")
    assert not matches("fold", "final-state fold")


def _row(name: str, met: bool | None = True) -> Row:
    return Row(name, "1,000", "1 s", "1 s", 1.0, "<= 2x", met)


def test_a_run_of_some_groups_replaces_their_rows_and_keeps_the_others() -> None:
    old, new = Run("2026-01-01 00:00", "a", "m", "c"), Run("2026-01-02 00:00", "b", "m", "c")
    before = Results(
        runs=(old,),
        rows=(
            Recorded("folds", old.key, _row("fold")),
            Recorded("audit", old.key, _row("audit")),
        ),
    )
    after = record(before, new, ["audit"], [Recorded("audit", new.key, _row("audit, again"))])
    assert [(r.group, r.run, r.row.name) for r in after.rows] == [
        ("folds", old.key, "fold"),
        ("audit", new.key, "audit, again"),
    ]
    assert after.runs == (old, new)
    everything = record(after, new, ["folds", "audit"], [Recorded("folds", new.key, _row("f"))])
    assert everything.runs == (new,)  # no row cites the old run any longer


_text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=30)


@given(
    st.lists(
        st.builds(
            Row,
            _text,
            _text,
            _text,
            _text,
            st.none() | st.floats(allow_nan=False, allow_infinity=False),
            _text,
            st.none() | st.booleans(),
        ),
        max_size=5,
    ),
    _text,
)
def test_recorded_results_read_back_as_they_were_written(rows: list[Row], note: str) -> None:
    results = Results(
        runs=(Run("2026-01-01 00:00", "abc", "m", "python -m benchmarks", note),),
        rows=tuple(Recorded("folds", "2026-01-01 00:00", row) for row in rows),
    )
    reread = parse(dump(results))
    assert reread == results
    assert [dataclasses.asdict(r.row) for r in reread.rows] == [
        dataclasses.asdict(row) for row in rows
    ]


def test_a_quick_run_is_recorded_only_where_it_is_told(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as exited:
        main(["--quick", "--record"])
    assert exited.value.code == 2
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "a --quick run is recorded only into the --results and --page given" in error
