"""``export --to parquet|csv``: the sessions, calls and events as tables DuckDB and polars
read in place, partitioned by day, their totals those of ``usage`` and ``sessions``
(issue 56)."""

from __future__ import annotations

import json
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest
from hypothesis import given, settings

from correx_tools import (
    EventReplayer,
    InMemoryEventStore,
    SQLiteEventStore,
    StoredEvent,
    ToolInvocationRequestedEvent,
)
from correx_tools.core.catalog.listing import SessionQuery
from correx_tools.core.replay.pricing import PriceTable
from correx_tools.core.report.redaction import Redaction
from correx_tools.shell.catalog.folded import FoldedCatalog
from correx_tools.shell.catalog.picking import catalog_of
from correx_tools.shell.columnar.rows import call_rows, call_shares
from correx_tools.shell.columnar.tables import SCHEMA_VERSION, TABLES
from correx_tools.shell.columnar.writing import export
from correx_tools.shell.replay.repository import DefaultToolRepository

from .commands import correx
from .strategies import sessions
from .teams import machine_folder, machine_store, two_machines_pushed

duckdb = pytest.importorskip("duckdb")
polars = pytest.importorskip("polars")
pq = pytest.importorskip("pyarrow.parquet")
pytest.importorskip("psycopg")


@pytest.fixture(scope="module")
def team(postgres_dsn: str, tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    with two_machines_pushed(postgres_dsn, tmp_path_factory.mktemp("machines")) as url:
        yield url


def query(sql: str) -> list[tuple[object, ...]]:
    """DuckDB's rows for ``sql``, as a fresh in-memory database reads the files."""
    with duckdb.connect() as connection:
        rows: list[tuple[object, ...]] = connection.execute(sql).fetchall()
    return rows


def exported(source: str, out: Path, *more: str) -> dict[str, object]:
    ran = correx("export", source, "-o", str(out), "--json", *more)
    assert ran.returncode == 0, ran.stderr
    answer: dict[str, object] = json.loads(ran.stdout)
    return answer


def test_parquet_read_back_by_duckdb_and_polars_agrees_with_usage_and_sessions(
    tmp_path: Path, team: str
) -> None:
    out = tmp_path / "tables"
    answer = exported(team, out, "--to", "parquet", "--events")
    usage = json.loads(correx("usage", team, "--json", check=True).stdout)["total"]
    listed = json.loads(correx("sessions", team, "--json", check=True).stdout)["sessions"]
    sessions = f"read_parquet('{out}/sessions/*/*.parquet', hive_partitioning = true)"
    calls = f"read_parquet('{out}/calls/*/*.parquet', hive_partitioning = true)"
    events = f"read_parquet('{out}/events/*/*.parquet', hive_partitioning = true)"
    count, cost, tokens = query(
        f"SELECT count(*), sum(cost), sum(input_tokens + output_tokens + cache_read_tokens "
        f"+ cache_write_tokens) FROM {sessions}"
    )[0]
    assert count == usage["sessions"] == answer["sessions"] == 4
    assert tokens == usage["tokens"]["total"] and cost == pytest.approx(usage["cost"])
    assert query(f"SELECT count(*) FROM {calls}")[0][0] == usage["calls"]
    # The calls' shares of the tokens add up to what the sessions' messages that asked for
    # calls spent, never more than the sessions' totals.
    shared = query(f"SELECT sum(output_tokens) FROM {calls}")[0][0]
    assert 0 < shared <= usage["tokens"]["output"]
    by_session = dict(query(
        f"SELECT session_id, count(*) FROM {events} GROUP BY session_id")
    )  # fmt: skip
    assert by_session == {s["session_id"]: s["events"] for s in listed}
    # polars reads the same folders, the day a column of its own.
    frame = polars.read_parquet(f"{out}/sessions/*/*.parquet", hive_partitioning=True)
    assert sorted(frame["session_id"].to_list()) == sorted(s["session_id"] for s in listed)
    assert {str(day) for day in frame["day"].to_list()} == {s["first_time"][:10] for s in listed}
    assert set(zip(frame["machine"].to_list(), frame["user"].to_list(), strict=True)) == {
        ("laptop", "anna"),
        ("desk", "bob"),
    }
    by_tool = polars.read_parquet(f"{out}/calls/*/*.parquet").group_by("status").len()
    assert sum(by_tool["len"].to_list()) == usage["calls"]
    # The schema, with its version, beside the tables and in every file.
    schema = json.loads((out / "schema.json").read_text())
    assert schema["schema_version"] == SCHEMA_VERSION
    for table, columns in TABLES.items():
        found = next((out / table).glob("*/*.parquet"))
        metadata = pq.read_schema(found).metadata
        assert metadata[b"correx_schema_version"] == str(SCHEMA_VERSION).encode()
        assert pq.read_schema(found).names == [name for name, _, _ in columns]


def test_csv_is_the_same_tables(tmp_path: Path, team: str) -> None:
    out = tmp_path / "csv"
    exported(team, out, "--to", "csv", "--machine", "desk")
    rows = query(
        f"SELECT machine, count(*) FROM read_csv('{out}/sessions/*/*.csv', "
        "hive_partitioning = true) GROUP BY machine"
    )
    assert rows == [("desk", 2)]
    calls = polars.read_csv(next((out / "calls").glob("*/*.csv")))
    assert calls.columns == [name for name, _, _ in TABLES["calls"]]


def test_secrets_in_arguments_are_masked(tmp_path: Path) -> None:
    transcript = tmp_path / "agent" / "s.jsonl"
    transcript.parent.mkdir()
    line = json.dumps({"type": "assistant", "sessionId": "s1", "uuid": "u1",
                       "timestamp": "2026-12-01T10:00:00Z", "cwd": "/p",
                       "message": {"role": "assistant", "model": "m", "content": [
                           {"type": "tool_use", "id": "t1", "name": "Bash",
                            "input": {"command": "PGPASSWORD=hunter2 psql"}}]}})  # fmt: skip
    transcript.write_text(line + "\n")
    out = tmp_path / "tables"
    exported(str(transcript.parent), out, "--to", "parquet", "--events")
    every = query(f"SELECT arguments FROM '{out}/calls/*/*.parquet'")
    assert every and all("hunter2" not in row[0] for row in every)
    data = query(f"SELECT data FROM '{out}/events/*/*.parquet'")
    assert all("hunter2" not in row[0] for row in data)


def test_an_export_is_refused_in_one_line_where_it_cannot_go(tmp_path: Path) -> None:
    folder = machine_folder(tmp_path / "m")
    taken = tmp_path / "taken"
    taken.mkdir()
    (taken / "file").write_text("x")
    for args in ((str(folder), "-o", str(taken)), (str(folder),),
                 (str(folder), "SESSION", "-o", str(tmp_path / "new"))):  # fmt: skip
        ran = correx("export", *args, "--to", "parquet")
        assert ran.returncode in (1, 2) and len(ran.stderr.strip().splitlines()) == 1, ran.stderr
    assert (taken / "file").read_text() == "x" and not (tmp_path / "new").exists()


@settings(max_examples=200, deadline=None)
@given(sessions(max_size=30, clock_skew=True))
def test_the_calls_rows_count_what_the_sessions_fold_counts(drawn: list[StoredEvent]) -> None:
    """Two answers to one question: the calls table's rows, made from the events step by
    step, and the session's row, made by the lenient fold, count the same calls."""
    # What a store refuses to hold: a foreign value, a second request of one id.
    asked: set[str] = set()
    tool = []
    for e in drawn:
        if isinstance(e.event, dict):
            continue
        if isinstance(e.event, ToolInvocationRequestedEvent):
            if e.event.invocation_id in asked:
                continue
            asked.add(e.event.invocation_id)
        tool.append(e)
    events = [replace(e, sequence=number) for number, e in enumerate(tool, 1)]
    store = InMemoryEventStore()
    store.import_events(events).unwrap()
    catalog = FoldedCatalog(store, DefaultToolRepository(EventReplayer(store), strict=False))
    listed, _ = catalog.listed(SessionQuery())
    if not listed:
        return  # no event: no session
    [session], prices = listed, PriceTable(models={})
    rows = list(call_rows(session, events, call_shares(events), Redaction(), prices))
    by = {status: sum(r["status"] == status for r in rows)
          for status in ("requested", "started", "completed", "failed", "rejected")}  # fmt: skip
    counts = session.counts
    assert len(rows) == len({r["invocation_id"] for r in rows}) == counts.calls
    assert (by["requested"], by["started"], by["completed"], by["failed"], by["rejected"]) == (
        counts.requested, counts.started, counts.completed, counts.failed, counts.rejected
    )  # fmt: skip
    exited = sum(r["status"] == "completed" and r["exit_code"] not in (0, None) for r in rows)
    assert exited == counts.exited_nonzero
    assert all(r["ran_ms"] is None or r["ran_ms"] >= 0 for r in rows)


def test_an_export_stopped_midway_leaves_no_table_and_no_scratch(tmp_path: Path) -> None:
    machine_store(tmp_path / "m.sqlite", sessions=3, calls=4)
    store = SQLiteEventStore(tmp_path / "m.sqlite", read_only=True)
    repository = DefaultToolRepository(EventReplayer(store), strict=False)
    listed, _ = catalog_of(store, lambda: repository).listed(SessionQuery())
    out = tmp_path / "out" / "tables"
    out.parent.mkdir()

    def stop(_: int) -> None:
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        export(store, listed, out, to="parquet", events=True, prices=PriceTable(models={}),
               redaction=Redaction(), progress=stop)  # fmt: skip
    assert list(out.parent.iterdir()) == []
    done = export(store, listed, out, to="parquet", events=True, prices=PriceTable(models={}),
                  redaction=Redaction())  # fmt: skip
    assert done.rows == {"sessions": 3, "calls": 12, "events": 36}
    store.close()
