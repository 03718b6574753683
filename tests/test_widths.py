"""Every table fits the width it is given: on a real terminal of 80 and 120 columns, piped
with ``COLUMNS`` or without it (80), wide characters measured as a terminal draws them,
ids never cut below a name that any command takes for them; ``--wide`` and ``--json`` for
every command with a table.

The commands read the real transcripts the project ships (`tests/data/transcripts`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

from correx_tools.shell.cli.main import COMMANDS, build_parser
from correx_tools.shell.cli.output.cells import ELLIPSIS, cell_width
from correx_tools.shell.cli.output.fitted import GAP, Column, fitted, fitted_cells, plain

from .commands import Ran, correx
from .test_terminal import on_terminal

DATA = Path(__file__).parent / "data" / "transcripts"
CLAUDE = DATA / "claude-code" / "session_4d5611e5_subagent_a2898e3.jsonl"
CODEX = next((DATA / "codex").glob("rollout-*.jsonl"))
GOOSE = DATA / "goose"
TOOLS = Path(__file__).parent / "data" / "mcp_tools_list.json"
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[a-zA-Z]")
RULE = re.compile(r"^[-─]{2,}( +[-─]{2,})*$")


def tables(output: str) -> list[tuple[str, list[str]]]:
    """Each table's rule (the line under its header, as wide as the table) and its header."""
    lines = ESCAPES.sub("", output).replace("\r", "").splitlines()
    return [(line, [lines[n - 1]]) for n, line in enumerate(lines) if n and RULE.match(line)]


def commands(tmp: Path) -> Iterator[tuple[list[str], int]]:
    """Every command with a table, on real transcripts, and the status it ends with."""
    store = tmp / "imported.sqlite"
    yield ["sessions", str(DATA)], 0
    yield ["usage", str(DATA), "--by", "project"], 0
    yield ["search", str(DATA), "git"], 0
    yield ["replay", str(CODEX), "019a"], 0
    yield ["history", str(CLAUDE), "4d", "toolu_01Pza94z"], 0
    yield ["diff", str(CODEX), "019a", "0", "40"], 0
    yield ["stats", str(CLAUDE), "4d"], 0
    yield ["audit", str(DATA)], 1
    yield ["compare", str(GOOSE / "20251118_154210.jsonl"), "2025", "2025",
           "--with", str(GOOSE / "20251118_2.json")], 0  # fmt: skip
    yield ["import-transcript", str(DATA / "codex"), str(store)], 0
    yield ["replay-all", str(store)], 0
    yield ["validate", str(TOOLS), '{"tool_name": "read_file", "arguments": {"path": 3}}'], 1


@pytest.fixture(scope="module")
def ran(tmp_path_factory: pytest.TempPathFactory) -> dict[tuple[str, int], str]:
    """Each command's output on a terminal of 80 and of 120 columns."""
    tmp = tmp_path_factory.mktemp("widths")
    said = {}
    for argv, status in commands(tmp):
        for columns in (80, 120):
            said[(argv[0], columns)] = on_terminal(*argv, cwd=tmp, columns=columns, status=status)
    return said


@pytest.mark.parametrize("columns", [80, 120])
@pytest.mark.parametrize("command", [argv[0] for argv, _ in commands(Path("."))])
def test_every_table_fits_the_terminal(
    ran: dict[tuple[str, int], str], command: str, columns: int
) -> None:
    found = tables(ran[(command, columns)])
    assert found, ran[(command, columns)]
    for rule, _ in found:
        # Every row of a fitted table is cut or padded to its columns: as wide as its rule.
        assert cell_width(rule) <= columns, ran[(command, columns)]


@pytest.mark.parametrize("command", [argv[0] for argv, _ in commands(Path("."))])
def test_every_table_is_drawn_alike_on_a_terminal(
    ran: dict[tuple[str, int], str], command: str
) -> None:
    # A bold header over a drawn rule (colour where a cell has one), as every command draws.
    said = ran[(command, 80)]
    assert all(rule.startswith("─") for rule, _ in tables(said)), said
    assert "\x1b[1m" in said


def test_a_wide_terminal_shows_more_than_a_narrow_one(ran: dict[tuple[str, int], str]) -> None:
    narrow, wide = tables(ran[("stats", 80)])[0], tables(ran[("stats", 120)])[0]
    assert "queued" not in narrow[1][0] and "queued" in wide[1][0]  # dropped at 80 only
    assert "took" in narrow[1][0]


def run(*argv: str, columns: int | None = None) -> Ran:
    """The command in this process, piped, ``COLUMNS`` set to ``columns`` (none: unset)."""
    return correx(*argv, env={"COLUMNS": None if columns is None else str(columns)})


@pytest.mark.parametrize("columns", [None, 60, 100])
def test_columns_is_honoured_piped_and_80_without_it(columns: int | None) -> None:
    for argv in (["replay", str(CODEX), "019a"], ["stats", str(CLAUDE), "4d"],
                 ["audit", str(DATA)]):  # fmt: skip
        out = run(*argv, columns=columns).stdout
        found = tables(out)
        assert found and all(cell_width(rule) <= (columns or 80) for rule, _ in found), out


def test_a_terminal_honours_columns_over_its_own_width(tmp_path: Path) -> None:
    said = on_terminal("replay", str(CODEX), "019a", cwd=tmp_path, columns=120,
                       env={"COLUMNS": "70"})  # fmt: skip
    assert all(cell_width(rule) <= 70 for rule, _ in tables(said))


def test_wide_characters_are_measured_as_the_terminal_draws_them() -> None:
    out = run("replay", str(CODEX), "019a", columns=120).stdout
    rows = [line for line in out.splitlines() if "ひらがな" in line]
    assert rows and all(cell_width(row) <= 120 for row in rows)
    assert any(cell_width(row) > len(row) for row in rows)  # a CJK cell takes two columns


def test_ids_are_cut_to_a_name_that_any_command_takes() -> None:
    out = run("replay", str(CLAUDE), "4d", "--limit", "0", columns=80).stdout
    shown = [line.split()[0] for line in out.splitlines()[3:]]
    whole = run("replay", str(CLAUDE), "4d", "--limit", "0", "--json").stdout
    ids = [record["invocation_id"] for record in json.loads(whole)["invocations"]]
    assert len(shown) == len(ids) == 33
    assert max(map(len, shown)) < len("toolu_01TfDS8UjxxjY4dzV8esUMzm")  # cut, at 80
    for name, invocation in zip(shown, ids, strict=True):
        assert invocation.split("/")[-1].startswith(name) and ELLIPSIS not in name
        named = run("history", str(CLAUDE), "4d", name, "--json").stdout
        assert json.loads(named)["invocation_id"] == invocation


def test_a_search_shows_a_call_whole_or_not_at_all() -> None:
    hits = json.loads(run("search", str(DATA), "git", "--json").stdout)["hits"]
    calls = {hit["invocation_id"].split("/")[-1] for hit in hits if hit["invocation_id"]}
    wide = run("search", str(DATA), "git", columns=120).stdout.splitlines()
    assert wide[0].split()[3] == "call"
    rows = [line.split() for line in wide[2:] if not line.startswith(("open one", "more hits"))]
    shown = {row[3] for row in rows if row[3] != "-"}
    assert shown and all(any(call.endswith(name) for call in calls) for name in shown)
    assert "call" not in run("search", str(DATA), "git", columns=60).stdout.splitlines()[0]
    # A session is named by a start no other session of the SOURCE shares, hit or not.
    everyone = [row["session_id"] for row in
                json.loads(run("sessions", str(DATA), "--json").stdout)["sessions"]]  # fmt: skip
    named = {row[0] for row in rows}
    assert named and all(sum(s.startswith(name) for s in everyone) == 1 for name in named)


def test_wide_shows_every_cell_whole() -> None:
    out = run("replay", str(CLAUDE), "4d", "--wide", columns=40).stdout
    assert "toolu_01GeDmRuX3FpXfLMC8mBtxgU" in out and ELLIPSIS not in out


TABLES = ("sessions", "usage", "search", "replay", "history", "diff", "stats", "audit", "compare",
          "import-transcript", "replay-all", "validate")  # fmt: skip


@pytest.mark.parametrize("command", TABLES)
def test_every_command_with_a_table_takes_wide_and_json(command: str) -> None:
    assert command in {c.name for c in COMMANDS}
    parser = build_parser(command)
    sub = next(a for a in parser._subparsers._group_actions)  # type: ignore[union-attr]
    options = {o for action in sub.choices[command]._actions for o in action.option_strings}
    assert {"--wide", "--json"} <= options


# -- the fitting itself ---------------------------------------------------------------------

TEXT = st.text(
    st.sampled_from("ab-_/xyz01 " + "日本語カタ" + "🙂🚀" + "e\u0301" + "Ωή"), max_size=30
)
COLUMN = st.builds(
    Column,
    header=st.sampled_from(["id", "tool", "did", "a long header"]),
    fit=st.sampled_from(["keep", "cut", "id"]),
    least=st.integers(0, 12),
    ease=st.integers(0, 20),
    give=st.integers(0, 3),
    right=st.booleans(),
    drop=st.integers(0, 3),
)


@given(st.lists(COLUMN, min_size=1, max_size=5).flatmap(
    lambda columns: st.tuples(
        st.just(columns),
        st.lists(st.lists(TEXT, min_size=len(columns), max_size=len(columns)), max_size=6),
        st.integers(10, 140),
    )
))  # fmt: skip
def test_a_fitted_table_is_never_wider_than_it_may_be(
    table: tuple[list[Column], list[list[str]], int],
) -> None:
    columns, rows, width = table
    natural = [max([cell_width(c.header), *(cell_width(row[n]) for row in rows)])
               for n, c in enumerate(columns)]  # fmt: skip
    # The narrowest the table can be: every column that may be dropped dropped, every other
    # at its floor (a kept one whole; a cut one or an id at its least, never below its header).
    floors = [
        size if c.fit == "keep" else min(size, max(c.least, cell_width(c.header)))
        for c, size in zip(columns, natural, strict=True) if not c.drop
    ]  # fmt: skip
    narrowest = sum(floors) + GAP * max(0, len(floors) - 1)
    shown = fitted_cells(columns, rows, width=width)
    lines = plain(shown).splitlines()
    if narrowest <= width:
        assert all(cell_width(line) <= width for line in lines), (lines, width)
    for cells, row in zip(shown.rows[1:], rows, strict=True):
        for cell, n in zip(cells, shown.shown, strict=True):
            kept = cell.strip()
            if columns[n].fit == "cut":
                kept = kept.removesuffix(ELLIPSIS)
            assert row[n].strip().startswith(kept.strip()), (cell, row[n])  # a start of it


def test_a_cut_never_splits_a_wide_character() -> None:
    shown = fitted([Column("title", fit="cut", least=4)], [["日本語の説明です"]], width=7)
    assert shown.splitlines()[2] == "日本語…"


def test_an_id_is_cut_to_a_start_never_below_its_least() -> None:
    shown = fitted(
        [Column("id", fit="id", least=10), Column("text", fit="cut", least=4)],
        [["toolu_01TfDS8UjxxjY4dzV8esUMzm", "x" * 80]],
        width=30,
    ).splitlines()
    assert shown[2].startswith("toolu_01Tf  ") and ELLIPSIS not in shown[2].split()[0]


def test_unknown_is_a_dash() -> None:
    out = run("replay", str(CODEX), "019a", columns=120).stdout
    [pending] = [line for line in out.splitlines() if "REQUESTED" in line]
    assert " - " in pending  # a call not ended: no completed time
