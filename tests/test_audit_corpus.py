"""The planted corpus of hostile calls in docs/audit.md ("What the built-in policy catches,
and what it does not"): every caught call gives exactly the rules its row names, every
documented miss gives none, so the page says what the audit does.

The calls are written into one session (`hostile_session`), imported into a SQLite store
by the command, and audited by the command (run in this process).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from correx_tools import SessionId, SQLiteEventStore, ToolInvocationRequestedEvent

from .commands import correx
from .hostile_calls import hostile_session

PAGE = Path(__file__).parent.parent / "docs" / "audit.md"
HEADING = "## What the built-in policy catches, and what it does not"
MISS = "not caught: "


def _cells(row: str) -> list[str]:
    """A Markdown table row's cells (``\\|`` is a ``|`` inside a cell)."""
    cells, cell, i = [], [], 0
    while i < len(row):
        if row.startswith("\\|", i):
            cell.append("|")
            i += 2
            continue
        if row[i] == "|":
            cells.append("".join(cell).strip())
            cell = []
        else:
            cell.append(row[i])
        i += 1
    return cells[1:]


def corpus() -> list[tuple[int, str, dict[str, Any], frozenset[str] | None]]:
    """The page's rows: number, tool, input, and the rules it gives (``None``: a miss)."""
    text = PAGE.read_text(encoding="utf-8")
    section = text[text.index(HEADING) :]
    rows = []
    for line in section.splitlines():
        if not line.startswith("| ") or line.startswith(("| #", "|---")):
            if rows and not line.startswith("|"):
                break
            continue
        number, tool, given, found = _cells(line)
        rules = None
        if not found.startswith(MISS):
            rules = frozenset(rule.strip(" `") for rule in found.split(","))
        rows.append((int(number), tool.strip("`"), json.loads(given.strip("`")), rules))
    return rows


def test_the_corpus_is_large_and_numbered_in_order() -> None:
    rows = corpus()
    assert len(rows) >= 60
    assert [n for n, *_ in rows] == list(range(1, len(rows) + 1))
    assert sum(rules is None for *_, rules in rows) >= 10


@pytest.fixture(scope="module")
def audited(tmp_path_factory: pytest.TempPathFactory) -> dict[int, set[str]]:
    """Each row's number and the rules the audit found at its call."""
    folder = tmp_path_factory.mktemp("corpus")
    rows = corpus()
    transcript = hostile_session(
        folder / "corpus.jsonl", "corpus", [(tool, given) for _, tool, given, _ in rows]
    )
    store = folder / "corpus.sqlite"
    correx("import-transcript", str(transcript), str(store), check=True)
    result = correx("audit", str(store), "--json")
    assert result.returncode == 1 and "Traceback" not in result.stderr, result.stderr
    reader = SQLiteEventStore(store)
    try:
        row_of = {
            stored.sequence: int(stored.event.invocation_id.rpartition("_")[2])
            for stored in reader.read(SessionId("corpus"))
            if isinstance(stored.event, ToolInvocationRequestedEvent)
        }
    finally:
        reader.close()
    assert sorted(row_of.values()) == [n for n, *_ in rows]
    found: dict[int, set[str]] = {n: set() for n, *_ in rows}
    for finding in json.loads(result.stdout)["findings"]:
        found[row_of[finding["sequence"]]].add(finding["rule"])
    return found


@pytest.mark.parametrize("row", corpus(), ids=lambda row: f"{row[0]}-{row[1]}")
def test_each_row_gives_what_the_page_says(
    audited: dict[int, set[str]], row: tuple[int, str, dict[str, Any], frozenset[str] | None]
) -> None:
    number, _, given, rules = row
    if rules is None:
        assert audited[number] == set(), f"row {number} ({given}) is listed as not caught"
    else:
        assert audited[number] == rules, f"row {number} ({given})"
