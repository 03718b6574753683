"""``diff --summary`` and diff's pages, through the command, and held to the events.

The counts are what counting the full diff gives, on a SQLite file and a JSONL
log; a page says how many there are; and an index row changed by hand is
caught by the counters and answered by folding instead.
"""

from __future__ import annotations

import json
import sqlite3
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from correx_tools import DefaultToolRepository, EventReplayer, SessionId, SQLiteEventStore

from .serving import demo_store
from .test_first_hour import run

SESSION = "demo-run01-session-2"  # with a refused event
STATUSES = ("requested", "started", "completed", "failed", "rejected")


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = demo_store(tmp_path_factory.mktemp("diffs"), 2, 300)
    assert run("import", str(path), str(path.with_name("demo.jsonl"))).returncode == 0
    return path


def asked(*args: str) -> Any:
    done = run(*args, "--json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def counted(changes: list[dict[str, Any]]) -> dict[str, Any]:
    """What --summary should say of a full diff's changes."""
    statuses = Counter(c["after"]["status"] for c in changes)
    added = Counter(c["after"]["tool_name"] for c in changes if c["before"] is None)
    changed = Counter(c["after"]["tool_name"] for c in changes if c["before"] is not None)
    return {
        "total": len(changes),
        "added": sum(added.values()),
        "changed": sum(changed.values()),
        "finished": sum(statuses[s] for s in ("completed", "failed", "rejected")),
        "statuses": {s: statuses[s] for s in STATUSES},
        "exited_nonzero": sum(
            1
            for c in changes
            if c["after"]["status"] == "completed" and c["after"]["receipt"]["exit_code"]
        ),
        "tools": [
            {"tool_name": tool, "added": added[tool], "changed": changed[tool]}
            for tool in sorted(added | changed)
        ],
    }


# The JSONL copy asks the same twelve questions again (the same engine): with the slow tests.
@pytest.mark.parametrize("log", [False, pytest.param(True, marks=pytest.mark.slow)],
                         ids=["sqlite", "jsonl"])  # fmt: skip
def test_the_summary_counts_what_the_full_diff_lists(demo: Path, log: bool) -> None:
    for source in [demo.with_name("demo.jsonl") if log else demo]:
        for a, b in [(0, 889), (100, 200), (232, 234), (500, 500), (0, 1), (880, 889)]:
            full = asked("diff", str(source), SESSION, str(a), str(b), "--limit", "0")
            summary = asked("diff", str(source), SESSION, str(a), str(b), "--summary")
            assert {k: v for k, v in summary.items() if k not in ("session_id", "a", "b")} == (
                counted(full["changes"])
            )
            assert full["total"] == len(full["changes"]) and full["limit"] is None
            assert full["exited_nonzero"] == summary["exited_nonzero"]


def test_a_diff_lists_a_page_and_says_how_many_there_are(demo: Path) -> None:
    everything = asked("diff", str(demo), SESSION, "0", "889", "--limit", "0")["changes"]
    page = asked("diff", str(demo), SESSION, "0", "889")
    assert page["total"] == len(everything) == 300 and page["limit"] == 50
    assert page["changes"] == everything[:50]
    assert (
        asked("diff", str(demo), SESSION, "100", "200", "--limit", "3")["changes"]
        == (asked("diff", str(demo), SESSION, "100", "200", "--limit", "0")["changes"][:3])
    )
    text = run("diff", str(demo), SESSION, "0", "889").stdout.splitlines()
    assert text[0] == (
        f"session {SESSION} from sequence 0 to 889: 300 invocations added or changed; the "
        "first 50 (--limit 0 shows all, --summary counts them):"
    )
    assert len(text) == 1 + 2 + 50
    summary = run("diff", str(demo), SESSION, "0", "889", "--summary").stdout.splitlines()
    assert summary[:3] == [
        f"session {SESSION} from sequence 0 to 889: 300 invocations added or changed",
        "  300 added, 0 changed, 300 finished",
        "  by status at 889: 271 completed, 17 failed, 12 rejected",
    ]
    assert summary[3].startswith("  by tool: ") and len(summary) == 4


@pytest.mark.parametrize(
    "change",
    [
        "UPDATE invocations SET status = 4 WHERE invocation_id = ("
        "SELECT invocation_id FROM invocations WHERE status = 3 ORDER BY sequence LIMIT 1)",
        "DELETE FROM invocations WHERE invocation_id = ("
        "SELECT invocation_id FROM invocations ORDER BY sequence DESC LIMIT 1)",
    ],
    ids=["a status changed", "a row deleted"],
)
def test_an_index_row_changed_by_hand_is_answered_by_folding(
    demo: Path, tmp_path: Path, change: str
) -> None:
    path = tmp_path / "changed.sqlite"
    path.write_bytes(demo.read_bytes())
    with SQLiteEventStore(path, read_only=True) as store:
        repository = DefaultToolRepository(EventReplayer(store), strict=False)
        truth = repository.diff_summary(SessionId(SESSION), 0, 889).unwrap()
        page = repository.diff(SessionId(SESSION), 0, 889).unwrap()
    with sqlite3.connect(path) as connection:
        connection.execute(change)
    with SQLiteEventStore(path, read_only=True) as store:
        repository = DefaultToolRepository(EventReplayer(store), strict=False)
        assert repository.diff_summary(SessionId(SESSION), 0, 889).unwrap() == truth
        assert repository.diff(SessionId(SESSION), 0, 889).unwrap() == page
